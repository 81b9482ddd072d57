/** What the client needs from a registrator: its endpoint and the decrypted key (never logged). */
export interface NamecheapCredentials {
  endpointUrl: string;
  apiUser: string;
  apiKey: string;
}

export interface NcDomainInfo {
  /** ASCII (punycode) form, as Namecheap knows it. */
  domainName: string;
  /** OK, Locked, Expired (Namecheap writes "Ok"); null when Namecheap sends none. */
  status: string | null;
  /** YYYY-MM-DD. */
  expirationDate: string | null;
  nameServers: string[];
  isUsingOurDns: boolean;
}

export interface NcListedDomain {
  domainName: string;
  created: string | null;
  expirationDate: string | null;
  isExpired: boolean;
  isLocked: boolean;
  autoRenew: boolean;
  isOurDns: boolean;
}

export interface NcDomainPage {
  items: NcListedDomain[];
  totalItems: number;
  page: number;
  pageSize: number;
}

/** One contact, used for all four roles (Registrant, Tech, Admin, AuxBilling). */
export interface NcContact {
  firstName: string;
  lastName: string;
  address1: string;
  city: string;
  stateProvince: string;
  postalCode: string;
  /** Two-letter code. */
  country: string;
  /** +NNN.NNNNNNNNNN */
  phone: string;
  email: string;
  organizationName?: string | null;
}

export interface NcCreateResult {
  domainName: string;
  registered: boolean;
  chargedAmount: string;
  domainId: number | null;
  orderId: number | null;
  transactionId: number | null;
  nonRealTime: boolean;
}

export interface NcDnsList {
  domainName: string;
  isUsingOurDns: boolean;
  nameServers: string[];
}
