#!/usr/bin/env bash
# Starts a real OpenSSH sshd on a free 127.0.0.1 port for the SSH layer's tests, with its own config, host key and a
# fresh client key in a temp dir. Needs root and the openssh-server package (installing it is CI's job).
#
# Run the real-OpenSSH tests without npm scripts:
#   eval "$(bash scripts/real-sshd.sh)" && npx vitest run apps/api/src/files/ssh/real-sshd.test.ts; kill "$REAL_SSHD_PID"
# Or write KEY=value lines to a file:  bash scripts/real-sshd.sh /tmp/sshd.env && set -a && . /tmp/sshd.env && set +a
#
# Prints export lines (or writes KEY=value lines to $1): REAL_SSHD_HOST, REAL_SSHD_PORT, REAL_SSHD_USER, REAL_SSHD_KEY (client private
# key path), REAL_SSHD_FINGERPRINT (host key, SHA256:…), REAL_SSHD_DIR (temp dir, also a path that exists on the
# host) and REAL_SSHD_PID (kill it to stop the daemon).
set -euo pipefail

SSHD=/usr/sbin/sshd
# openssh-server may still be installing in parallel: wait a little for the binary rather than fail at once.
for _ in $(seq 1 60); do
  [ -x "$SSHD" ] && break
  sleep 1
done
if [ ! -x "$SSHD" ]; then
  echo "real-sshd: $SSHD not found; install openssh-server first" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "real-sshd: must run as root (sshd needs privilege separation)" >&2
  exit 1
fi

DIR="$(mktemp -d /tmp/fleetdesk-sshd.XXXXXX)"
chmod 755 "$DIR"
# sshd refuses to start without its privilege-separation directory.
mkdir -p /run/sshd

PORT="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
USER_NAME="$(id -un)"

ssh-keygen -q -t ed25519 -N '' -C fleetdesk-real-sshd-host -f "$DIR/ssh_host_ed25519_key"
ssh-keygen -q -t ed25519 -N '' -C fleetdesk-real-sshd-client -f "$DIR/client_key"
cp "$DIR/client_key.pub" "$DIR/authorized_keys"
chmod 600 "$DIR/ssh_host_ed25519_key" "$DIR/client_key" "$DIR/authorized_keys"

SFTP_SERVER=internal-sftp
cat >"$DIR/sshd_config" <<CONFIG
Port $PORT
ListenAddress 127.0.0.1
HostKey $DIR/ssh_host_ed25519_key
PidFile $DIR/sshd.pid
AuthorizedKeysFile $DIR/authorized_keys
UsePAM no
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers $USER_NAME
Subsystem sftp $SFTP_SERVER
LogLevel ERROR
CONFIG

"$SSHD" -t -f "$DIR/sshd_config"
# Without -D sshd daemonises after binding; the pid file says which process to stop.
"$SSHD" -f "$DIR/sshd_config" -E "$DIR/sshd.log"

for _ in $(seq 1 50); do
  if [ -s "$DIR/sshd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    break
  fi
  sleep 0.1
done
if [ ! -s "$DIR/sshd.pid" ]; then
  echo "real-sshd: sshd did not start; log follows" >&2
  cat "$DIR/sshd.log" >&2 || true
  exit 1
fi

FINGERPRINT="$(ssh-keygen -lf "$DIR/ssh_host_ed25519_key.pub" | awk '{print $2}')"
ENV_LINES="REAL_SSHD_HOST=127.0.0.1
REAL_SSHD_PORT=$PORT
REAL_SSHD_USER=$USER_NAME
REAL_SSHD_KEY=$DIR/client_key
REAL_SSHD_FINGERPRINT=$FINGERPRINT
REAL_SSHD_DIR=$DIR
REAL_SSHD_PID=$(cat "$DIR/sshd.pid")"

if [ $# -ge 1 ]; then
  printf '%s\n' "$ENV_LINES" >"$1"
  echo "real-sshd: listening on 127.0.0.1:$PORT, variables written to $1" >&2
else
  printf '%s\n' "$ENV_LINES" | sed 's/^/export /'
fi
