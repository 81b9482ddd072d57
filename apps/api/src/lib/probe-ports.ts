/**
 * Which ports the console may connect to when it probes an operator's record (SSH connection tests, proxy checks).
 * The target is always the saved record's host and port, never one sent with the request; on top of that, ports
 * that belong to other well-known services are refused, so the probes cannot be used to map databases, admin
 * APIs and the like on the console's network. See decision 013.
 */

/** Well-known services above 1023 that are neither SSH nor a forward proxy. */
export const OTHER_SERVICE_PORTS: ReadonlyMap<number, string> = new Map([
  [1433, 'SQL Server'],
  [1521, 'Oracle'],
  [2049, 'NFS'],
  [2375, 'the Docker API'],
  [2376, 'the Docker API'],
  [2379, 'etcd'],
  [2380, 'etcd'],
  [3306, 'MySQL'],
  [3389, 'RDP'],
  [5432, 'PostgreSQL'],
  [5672, 'AMQP'],
  [5984, 'CouchDB'],
  [6379, 'Redis'],
  [6443, 'the Kubernetes API'],
  [9042, 'Cassandra'],
  [9200, 'Elasticsearch'],
  [9300, 'Elasticsearch'],
  [10250, 'the kubelet'],
  [11211, 'memcached'],
  [27017, 'MongoDB'],
]);

function refusal(port: number, allowedLow: readonly number[], what: string): string | null {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return `Port ${port} is not a valid port`;
  if (port < 1024 && !allowedLow.includes(port)) {
    return `${what} are limited to ${allowedLow.join(', ')} and ports from 1024; port ${port} belongs to another service`;
  }
  const other = OTHER_SERVICE_PORTS.get(port);
  if (other) return `${what} do not connect to port ${port}, the port of ${other}`;
  return null;
}

/** Null when an SSH connection test may connect to this port, else why not. */
export const sshPortRefusal = (port: number) => refusal(port, [22], 'SSH connection tests');

/** Null when a proxy check may connect to this port, else why not. */
export const proxyPortRefusal = (port: number) => refusal(port, [80, 443], 'Proxy checks');
