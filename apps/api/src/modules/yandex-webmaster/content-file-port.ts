import { ValidationError } from '../../http/errors.ts';
import type { Actor } from '../../http/context.ts';
import { openDomainContentFs } from '../../files/content/index.ts';
import type { SshPool } from '../../files/ssh/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ServersService } from '../servers/servers.service.ts';
import type { WebmasterFilePort } from './yandex-webmaster.service.ts';

/** A verification file is a few hundred bytes; anything larger is a bug, not a file to place. */
const MAX_FILE_BYTES = 4096;

/**
 * Writes a verification file in the root of the domain's content directory through the one content-file
 * layer (decision 020): the domain's server over SSH, `<domainsPath>/<domain>/<name>`. The directory must exist.
 */
export function createContentFilePort(deps: {
  ssh: SshPool;
  domains: Pick<DomainsService, 'get'>;
  servers: Pick<ServersService, 'get' | 'sshTarget'>;
  audit: AuditService;
  /** The audit entry's action: which verification wrote the file. */
  auditAction?: string;
}): WebmasterFilePort {
  return {
    async writeRootFile(domainId: string, name: string, content: string, actor: Actor) {
      const d = await deps.domains.get(domainId);
      if (!d.serverId) throw new ValidationError('The domain has no server: pick one on its General tab');
      const server = await deps.servers.get(d.serverId);
      if (!server.domainsPath) throw new ValidationError("The domain's server has no domains path");
      const target = await deps.servers.sshTarget(d.serverId);
      const files = openDomainContentFs(deps.ssh, target, { domainsPath: server.domainsPath }, d.domainName);
      await files.writeAtomic(`/${name}`, content, { maxBytes: MAX_FILE_BYTES, mkdirs: false, label: name });
      await deps.audit.record(actor, {
        action: deps.auditAction ?? 'yandex_verification_file',
        entity: 'domains',
        entityId: domainId,
        details: { file: name },
      });
    },
  };
}
