import { useAuthInfo } from './auth-info.ts';

export function DemoBanner() {
  const info = useAuthInfo();
  if (!info?.demo) return null;
  return (
    <div className="bg-warning-subtle text-warning-emphasis border-bottom border-warning-subtle text-center small py-1 px-2">
      Demo mode: sample data and simulated providers. Log in as admin / admin.
    </div>
  );
}
