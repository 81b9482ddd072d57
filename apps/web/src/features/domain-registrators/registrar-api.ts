import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ListResult,
  RegisterDomainResult,
  RegistrarNameServersResult,
  RegistratorDomain,
  RegistratorDomainInfo,
  RegistratorImportResult,
} from '@fleetdesk/contract';
import { api, apiRequest } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

const enc = encodeURIComponent;
const registratorPath = (id: string) => `/api/domain-registrators/${enc(id)}`;

export const registrarPaths = {
  domains: (registratorId: string) => `/domain-registrators/${enc(registratorId)}/domains`,
  register: (domainId: string) => `/domains/${enc(domainId)}/register`,
  registratorTab: (domainId: string) => `/domains/${enc(domainId)}?tab=domain-registrator`,
};

export const registrarKeys = {
  info: (registratorId: string, domainName: string) =>
    ['domain-registrators', 'info', registratorId, domainName] as const,
  domains: (registratorId: string) => ['domain-registrators', 'domains', registratorId] as const,
};

/** Spec 2 "Registrator domain info": GET {id}/domain-info?domainName=. A 200 may still be unsuccessful. */
export function useRegistratorDomainInfo(registratorId: string | null, domainName: string, enabled = true) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: registrarKeys.info(registratorId ?? '', domainName),
    queryFn: async ({ signal }) => {
      const r = await apiRequest<RegistratorDomainInfo>(`${registratorPath(registratorId!)}/domain-info`, {
        query: { domainName },
        signal,
      });
      // A success stores the expiration date on the domain: the list and the form read it again.
      if (r.success) void queryClient.invalidateQueries({ queryKey: ['domains'] });
      return r;
    },
    enabled: Boolean(registratorId && domainName) && enabled,
    retry: false,
    staleTime: 30_000,
  });
}

export function useRegistratorDomains(registratorId: string, page: number, search: string) {
  return useQuery({
    queryKey: [...registrarKeys.domains(registratorId), page, search],
    queryFn: ({ signal }) =>
      api.get<ListResult<RegistratorDomain>>(`${registratorPath(registratorId)}/domains`, { page, search }, signal),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useImportDomains(registratorId: string) {
  const queryClient = useQueryClient();
  return useMutation<RegistratorImportResult, ApiError, string[]>({
    mutationFn: (domainNames) =>
      api.post<RegistratorImportResult>(`${registratorPath(registratorId)}/import`, { domainNames }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: registrarKeys.domains(registratorId) });
      void queryClient.invalidateQueries({ queryKey: ['domains'] });
    },
  });
}

export function useRegisterDomain(domainId: string) {
  const queryClient = useQueryClient();
  return useMutation<RegisterDomainResult, ApiError, { domainRegistratorContactId: string; years: number }>({
    mutationFn: (body) => api.post<RegisterDomainResult>(`/api/domains/${enc(domainId)}/register`, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['domains'] });
      void queryClient.invalidateQueries({ queryKey: ['domain-registrators', 'info'] });
    },
  });
}

export function useSetRegistrarNameServers(domainId: string) {
  return useMutation<RegistrarNameServersResult, ApiError, void>({
    mutationFn: () => api.post<RegistrarNameServersResult>(`/api/domains/${enc(domainId)}/registrar/name-servers`),
  });
}
