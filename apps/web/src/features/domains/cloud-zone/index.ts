export { CloudZoneInfo } from './cloud-zone-info.tsx';
export { useCloudZoneInfo, zoneInfoKey } from './cloud-zone-api.ts';
