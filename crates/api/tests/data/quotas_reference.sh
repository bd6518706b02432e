#!/usr/bin/env bash
# Records how the reference (Octavia 19.0.0's API, `STACK_REFERENCE=1 ci/stack/up.sh`) answers
# the quota reads for a project whose quota row has unset (NULL) limits; the output is
# quotas_reference.json, read by tests/quotas.rs (`quota_reads_answer_as_the_reference`).
#   STACK_SLOT=1 STACK_REFERENCE=1 ci/stack/up.sh
#   STACK_SLOT=1 crates/api/tests/data/quotas_reference.sh > crates/api/tests/data/quotas_reference.json
# The project ids are fixed (the test compares bodies); their rows are deleted (SQL) before and
# after, and no other row of the reference's database is touched.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
# shellcheck disable=SC1091
source "$root/ci/stack/env.sh" admin >/dev/null
url="${REFERENCE_URL:-http://127.0.0.1:$((9876 + ${STACK_SLOT:-0} * 1000))}"
token="$(openstack token issue -f value -c id)"
P=45454545454545454545454545454545
req() { # method path [body] → {"request": …, "status": …, "body": …}
  local m=$1 p=$2 b=${3:-} out code
  out="$(mktemp)"
  if [[ -n $b ]]; then
    code=$(curl -s -o "$out" -w '%{http_code}' -X "$m" -H "X-Auth-Token: $token" -H 'Content-Type: application/json' -d "$b" "$url$p")
  else
    code=$(curl -s -o "$out" -w '%{http_code}' -X "$m" -H "X-Auth-Token: $token" "$url$p")
  fi
  python3 - "$m" "$p" "$b" "$code" "$out" <<'PY'
import json, sys
m, p, b, code, out = sys.argv[1:]
text = open(out).read()
body = json.loads(text) if text.strip() else None
print(json.dumps({"request": f"{m} {p}", "sent": json.loads(b) if b else None,
                  "status": int(code), "body": body}))
PY
  rm -f "$out"
}
# SQL on the reference's database (a row as a load balancer create leaves it: limits NULL)
conn="$(sed -n 's/^connection *= *mysql+pymysql:\/\/\([^:]*\):\([^@]*\)@\([^:]*\):\([0-9]*\)\/\([^?]*\).*/\1 \2 \3 \4 \5/p' "$STACK_STATE/etc/octavia/octavia.conf" | head -1)"
read -r db_user db_pass db_host db_port db_name <<<"$conn"
sql() { # statement → {"sql": …}
  mysql -h "$db_host" -P "$db_port" -u "$db_user" -p"$db_pass" "$db_name" -e "$1"
  python3 -c 'import json,sys; print(json.dumps({"sql": sys.argv[1]}))' "$1"
}
P2=46464646464646464646464646464646
recorded="$(date -u +%FT%TZ), Octavia $(python3 -c 'import importlib.metadata as m; print(m.version("octavia"))') at $url"
{
  sql "DELETE FROM quotas WHERE project_id IN ('$P', '$P2')" >/dev/null
  req GET "/v2/lbaas/quotas?project_id=$P"
  req PUT "/v2/lbaas/quotas/$P" '{"quota": {"loadbalancer": 5, "health_monitor": 2}}'
  req GET "/v2/lbaas/quotas?project_id=$P"
  req GET "/v2/lbaas/quotas/$P"
  req DELETE "/v2/lbaas/quotas/$P"
  req GET "/v2/lbaas/quotas?project_id=$P"
  req GET "/v2/lbaas/quotas/$P"
  # a row with unset limits: listed as stored (null) until a GET of the project stores the
  # defaults (`_get_db_quotas` inside a committed transaction)
  sql "INSERT INTO quotas (project_id, load_balancer, in_use_load_balancer) VALUES ('$P2', 3, 1)"
  req GET "/v2/lbaas/quotas?project_id=$P2"
  req GET "/v2/lbaas/quotas/$P2"
  req GET "/v2/lbaas/quotas?project_id=$P2"
  sql "DELETE FROM quotas WHERE project_id = '$P2'"
  sql "DELETE FROM quotas WHERE project_id = '$P'" >/dev/null
} | RECORDED="$recorded" python3 -c '
import json, os, sys
print(json.dumps({
    "recorded": os.environ["RECORDED"],
    "command": "STACK_SLOT=1 STACK_REFERENCE=1 ci/stack/up.sh; STACK_SLOT=1 crates/api/tests/data/quotas_reference.sh > crates/api/tests/data/quotas_reference.json",
    "exchanges": [json.loads(l) for l in sys.stdin],
}, indent=1))'
