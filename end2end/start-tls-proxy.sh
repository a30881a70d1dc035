#!/usr/bin/env bash
# The panel as production runs it: behind nginx with TLS, configured by
# deploy/nginx.conf as shipped — only its host name, certificate paths and
# ports replaced. A release meshwatch-server with a fresh database and one
# operator (made through the real CLI) on a loopback port, and a private
# nginx of this script's own (never the system's) on unprivileged loopback
# ports with a self-signed certificate made now. SIGTERM stops both.
#
# nginx reaches the panel from 127.0.0.2 (`proxy_bind`, set around the
# shipped file), the only trusted proxy: a client address the panel logs
# is then 127.0.0.1 only if it took it from X-Forwarded-For.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=target/release/meshwatch-server
if [ ! -x "$bin" ] || [ ! -f target/site/pkg/meshwatch.wasm ]; then
  echo "build first: make build" >&2
  exit 1
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
for tool in "$nginx" openssl; do
  if ! command -v "$tool" >/dev/null; then
    echo "$tool is missing: run scripts/setup.sh --with-browser" >&2
    exit 1
  fi
done

tls_port=${E2E_TLS_PORT:-3443}         # https://127.0.0.1:<tls_port>: what the browser opens
http_port=${E2E_TLS_HTTP_PORT:-3480}   # the shipped port-80 redirect
panel_port=${E2E_TLS_PANEL_PORT:-3126} # meshwatch-server itself
proxy_address=127.0.0.2
# The panel's log on fd 3: the file the tests read, else stderr.
if [ -n "${E2E_TLS_LOG:-}" ]; then exec 3>"$E2E_TLS_LOG"; else exec 3>&2; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/meshwatch-e2e-tls.XXXXXX")
panel_pid='' nginx_pid=''
stop() {
  # nginx first: it holds the panel's open /events streams.
  for pid in "$nginx_pid" "$panel_pid"; do
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 0' TERM INT

# A certificate for the addresses the browser uses, valid two days.
mkdir "$work/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
  -keyout "$work/tls/privkey.pem" -out "$work/tls/fullchain.pem" 2>/dev/null

# deploy/nginx.conf with its placeholders replaced — and nothing else.
sed -e "s#/etc/letsencrypt/live/panel.example/#$work/tls/#g" \
    -e "s#server_name panel.example;#server_name 127.0.0.1 localhost;#" \
    -e "s#listen 443 ssl http2;#listen 127.0.0.1:$tls_port ssl http2;#" \
    -e "s#listen 80;#listen 127.0.0.1:$http_port;#" \
    -e "s#http://127.0.0.1:3000;#http://127.0.0.1:$panel_port;#" \
    deploy/nginx.conf >"$work/panel.conf"
# Had the shipped file changed its placeholders, this would test something else.
uncommented() { grep -v '^[[:space:]]*#' "$work/panel.conf"; }
if uncommented | grep -Eq 'panel\.example|letsencrypt|127\.0\.0\.1:3000|listen (443|80)[ ;]' \
   || [ "$(uncommented | grep -c "proxy_pass http://127.0.0.1:$panel_port;")" -lt 2 ] \
   || ! uncommented | grep -q "listen 127.0.0.1:$tls_port ssl" \
   || ! uncommented | grep -q "listen 127.0.0.1:$http_port;"; then
  echo "deploy/nginx.conf no longer has the placeholders end2end/start-tls-proxy.sh replaces:" >&2
  cat "$work/panel.conf" >&2
  exit 1
fi

# The top level around it: everything nginx writes stays in $work. As root,
# workers keep root (the default, nobody, cannot enter the 0700 $work).
{
  [ "$(id -u)" = 0 ] && echo "user root;"
  cat <<EOF
daemon off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log notice;
events { worker_connections 256; }
http {
    access_log $work/access.log;
    client_body_temp_path $work/client_body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    proxy_bind $proxy_address;
    include $work/panel.conf;
}
EOF
} >"$work/nginx.conf"
"$nginx" -t -q -e "$work/error.log" -p "$work" -c "$work/nginx.conf"

export MESHWATCH_DATABASE_URL="sqlite://$work/meshwatch.db"
export MESHWATCH_LISTEN="127.0.0.1:$panel_port"
export MESHWATCH_PUBLIC_URL="https://127.0.0.1:$tls_port"
export MESHWATCH_TRUSTED_PROXIES="$proxy_address"
export NO_COLOR=1
MESHWATCH_OPERATOR_PASSWORD="$E2E_PASSWORD" "$bin" create-operator "$E2E_OPERATOR" >&2
"$bin" >&3 2>&3 &
panel_pid=$!
"$nginx" -e "$work/error.log" -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!

# Until SIGTERM; if either stops on its own, stop the other and fail.
set +e
wait -n "$panel_pid" "$nginx_pid"
status=$?
echo "start-tls-proxy.sh: the panel or nginx stopped (status $status)" >&2
tail -n 20 "$work/error.log" >&2 2>/dev/null
exit 1
