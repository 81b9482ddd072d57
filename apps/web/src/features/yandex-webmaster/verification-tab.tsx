import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { YANDEX_VERIFICATION_TYPES, type YandexVerificationType } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { StaticField } from '../../components/form-fields.tsx';
import { VerificationInstructions } from './verification-instructions.tsx';
import { YandexCode, YandexCodes, yandexLabel } from './yandex-labels.tsx';
import { useVerification, useVerifyHost } from './yandex-webmaster-api.ts';
import { Loaded, failure, hostNameOf, show, when } from './host-kit.tsx';

export function VerificationTab({ id, hostId, onVerified }: { id: string; hostId: string; onVerified?: () => void }) {
  const q = useVerification(id, hostId);
  const verify = useVerifyHost(id, hostId);
  const dialogs = useDialogs();
  const [seenVerified, setSeenVerified] = useState(false);
  // Set once a check starts here: its success is then announced, not just shown as a state.
  const [checking, setChecking] = useState(false);
  if (q.data?.verification_state === 'VERIFIED' && !seenVerified) {
    setSeenVerified(true);
    onVerified?.();
  }
  return (
    <Loaded q={q}>
      {(v) => {
        const applicable = (v.applicable_verifiers ?? []).filter((x): x is YandexVerificationType =>
          (YANDEX_VERIFICATION_TYPES as readonly string[]).includes(x),
        );
        const canVerify = v.verification_state !== 'VERIFIED' && v.verification_state !== 'IN_PROGRESS';
        const start = (type: YandexVerificationType) => {
          setChecking(true);
          void verify.mutateAsync(type).then(
            () => q.refetch(),
            (err) => {
              setChecking(false);
              return dialogs.error(failure(err, 'Failed to start host verification'));
            },
          );
        };
        return (
          <>
            {checking && v.verification_state === 'VERIFIED' && (
              <Alert variant="success" data-testid="verification-success">
                The host is verified: its Summary, Important URLs, Sitemaps and Recrawl tabs are open now.
              </Alert>
            )}
            <StaticField label="State" value={<YandexCode code={v.verification_state} testId="verification-state" />} />
            <StaticField label="Type" value={<YandexCode code={v.verification_type} />} />
            <StaticField label="Uin" value={<code>{show(v.verification_uin)}</code>} />
            <StaticField label="Last Time" value={when(v.latest_verification_time)} />
            <StaticField
              label="Fail Info"
              value={
                v.fail_info ? (
                  <>
                    <YandexCode code={v.fail_info.reason} />: {show(v.fail_info.message)}
                  </>
                ) : (
                  '—'
                )
              }
            />
            <StaticField label="Applicable Verifiers" value={<YandexCodes codes={v.applicable_verifiers} />} />
            {v.verification_state === 'IN_PROGRESS' && (
              <Alert variant="info">Yandex is checking the host; this page follows the check.</Alert>
            )}
            {canVerify && applicable.length > 0 && v.verification_uin && (
              <>
                <p className="mb-2">
                  Publish one of these, then verify the host with the same method. Yandex checks it within a minute or
                  two.
                </p>
                <VerificationInstructions
                  uin={v.verification_uin}
                  hostName={hostNameOf(hostId)}
                  methods={applicable}
                  action={(method) => (
                    <Button
                      size="sm"
                      disabled={verify.isPending}
                      aria-label={`Verify Host with ${yandexLabel(method)}`}
                      onClick={() => start(method)}
                    >
                      Verify Host
                    </Button>
                  )}
                />
              </>
            )}
          </>
        );
      }}
    </Loaded>
  );
}
