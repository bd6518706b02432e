#!/usr/bin/env bash
# The STACK_COMPUTE=1 services answer what the amphora provider asks, through the catalog:
#   Nova    GET /flavors/$STACK_NOVA_FLAVOR_ID (microversion 2.15, as Octavia's client)
#           GET /os-availability-zone: $STACK_NOVA_AZ and `nova` available
#   Cinder  GET /os-availability-zone (v3, project in the URL): $STACK_CINDER_AZ available
#   Glance  GET /v2/images?tag=$STACK_GLANCE_AMP_TAG&status=active (+ &owner= when
#           STACK_GLANCE_AMP_OWNER_ID is set): $STACK_GLANCE_AMP_IMAGE_ID first
# Needs OS_* and STACK_* of `source ci/stack/env.sh admin` (with the compute side running).
# Exit 0 = pass; otherwise one line `smoke-compute: FAIL <reason>` on stderr and exit 1.
set -uo pipefail
fail() { echo "smoke-compute: FAIL $*" >&2; exit 1; }
for v in OS_AUTH_URL OS_USERNAME OS_PASSWORD OS_PROJECT_NAME STACK_NOVA_FLAVOR_ID STACK_NOVA_AZ \
         STACK_CINDER_AZ STACK_GLANCE_AMP_TAG STACK_GLANCE_AMP_IMAGE_ID; do
  [[ -n ${!v:-} ]] || fail "$v is not set: source ci/stack/env.sh admin (after STACK_COMPUTE=1 up.sh)"
done
T0=$(date +%s.%N)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
# token + catalog (Keystone v3 password auth, project scope)
body=$(python3 -c 'import json, os; e = os.environ; print(json.dumps({"auth": {
  "identity": {"methods": ["password"], "password": {"user": {"name": e["OS_USERNAME"],
    "domain": {"name": e.get("OS_USER_DOMAIN_NAME", "Default")}, "password": e["OS_PASSWORD"]}}},
  "scope": {"project": {"name": e["OS_PROJECT_NAME"],
    "domain": {"name": e.get("OS_PROJECT_DOMAIN_NAME", "Default")}}}}}))')
code=$(curl -s -m 20 -o "$TMP/token.json" -D "$TMP/token.hdr" -w '%{http_code}' \
       -H 'Content-Type: application/json' -d "$body" "${OS_AUTH_URL%/}/auth/tokens") \
  || fail "Keystone unreachable at $OS_AUTH_URL"
[[ $code == 201 ]] || fail "Keystone token: HTTP $code"
TOKEN=$(sed -n 's/^[Xx]-[Ss]ubject-[Tt]oken: *\([^[:space:]]*\).*/\1/p' "$TMP/token.hdr")
[[ -n $TOKEN ]] || fail "Keystone token: no X-Subject-Token header"
# endpoint TYPE...: the first public endpoint of the first of these service types found
endpoint() {
  python3 - "$TMP/token.json" "${OS_REGION_NAME:-RegionOne}" "$@" <<'PY'
import json, sys
cat = json.load(open(sys.argv[1]))['token']['catalog']
for t in sys.argv[3:]:
    for s in cat:
        if s['type'] != t:
            continue
        for e in s['endpoints']:
            if e['interface'] == 'public' and e.get('region_id', e.get('region')) == sys.argv[2]:
                print(e['url'].rstrip('/'))
                sys.exit(0)
sys.exit(1)
PY
}
NOVA=$(endpoint compute) || fail "no public compute endpoint in the catalog"
GLANCE=$(endpoint image) || fail "no public image endpoint in the catalog"
CINDER=$(endpoint block-storage volumev3) || fail "no public block-storage/volumev3 endpoint in the catalog"
# get NAME URL [HEADER]: the body to $TMP/NAME.json; fails unless HTTP 200
get() {
  local code
  code=$(curl -s -m 20 -o "$TMP/$1.json" -w '%{http_code}' -H "X-Auth-Token: $TOKEN" ${3:+-H "$3"} "$2") \
    || fail "$1: $2 unreachable"
  [[ $code == 200 ]] || fail "$1: GET $2 -> HTTP $code $(head -c 200 "$TMP/$1.json" | tr '\n' ' ')"
}
py() { python3 -c "import json, sys; d = json.load(open('$TMP/$1.json')); $2"; }
MV='OpenStack-API-Version: compute 2.15'

get flavor "$NOVA/flavors/$STACK_NOVA_FLAVOR_ID" "$MV"
py flavor "sys.exit(d['flavor']['id'] != '$STACK_NOVA_FLAVOR_ID')" \
  || fail "nova flavor: another id in $(head -c 200 "$TMP/flavor.json")"
echo "  nova    GET $NOVA/flavors/$STACK_NOVA_FLAVOR_ID: $(py flavor "f = d['flavor']; print(f\"{f['name']} vcpus={f['vcpus']} ram={f['ram']} disk={f['disk']}\")")"

AVAIL='print(" ".join(sorted(z["zoneName"] for z in d["availabilityZoneInfo"] if z["zoneState"]["available"])))'
get nova-az "$NOVA/os-availability-zone" "$MV"
zones=" $(py nova-az "$AVAIL") "
[[ $zones == *" $STACK_NOVA_AZ "* && $zones == *" nova "* ]] \
  || fail "nova zones available:${zones% } (want $STACK_NOVA_AZ and nova)"
echo "  nova    GET $NOVA/os-availability-zone: available:${zones% }"

get cinder-az "$CINDER/os-availability-zone"
zones=" $(py cinder-az "$AVAIL") "
[[ $zones == *" $STACK_CINDER_AZ "* ]] || fail "cinder zones available:${zones% } (want $STACK_CINDER_AZ)"
echo "  cinder  GET $CINDER/os-availability-zone: available:${zones% }"

q="tag=$STACK_GLANCE_AMP_TAG&status=active&sort=created_at:desc&limit=2"
[[ -n ${STACK_GLANCE_AMP_OWNER_ID:-} ]] && q+="&owner=$STACK_GLANCE_AMP_OWNER_ID"
get images "$GLANCE/v2/images?$q"
first=$(py images "print(d['images'][0]['id'] if d['images'] else '')")
[[ $first == "$STACK_GLANCE_AMP_IMAGE_ID" ]] \
  || fail "glance images?$q: first is '${first:-none}', want $STACK_GLANCE_AMP_IMAGE_ID"
echo "  glance  GET $GLANCE/v2/images?$q: $first"
echo "smoke-compute: PASS ($(printf '%.1f' "$(echo "$(date +%s.%N) - $T0" | bc)") s)"
