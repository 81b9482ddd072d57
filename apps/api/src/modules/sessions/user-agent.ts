import Bowser from 'bowser';

/** "Chrome 131 on Linux", "Firefox 133 on Windows 10", "curl/8.5.0": what the sessions screen shows. */
export function describeUserAgent(ua: string | null | undefined): string {
  if (!ua) return 'Unknown';
  const r = Bowser.parse(ua);
  const name = r.browser.name;
  if (!name) return ua.slice(0, 60);
  const major = r.browser.version?.split('.')[0];
  const os = [r.os.name, r.os.versionName].filter(Boolean).join(' ');
  return `${name}${major ? ` ${major}` : ''}${os ? ` on ${os}` : ''}`;
}
