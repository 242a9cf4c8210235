#!/usr/bin/env bash
# Entrypoint of the vertx-rma image (docs/running-jobs.md "Docker"); runs on any host as well.
#
# Without RMA_MEMBERS the arguments are bin/rmarun's and the whole job runs in this container:
#   docker run --rm vertx-rma -np 4 twisted
#
# With RMA_MEMBERS this container is one JVM of a job over several containers (or hosts). The
# arguments are rmarun's options and PROGRAM [ARGS...] (not -np: RMA_NP gives it), the rest
# comes from the environment:
#   RMA_MEMBERS          the job's members, one JVM each, in rank order: h1,h2,h3 (names or
#                        addresses; HOST:PORT where the cluster port differs from RMA_CLUSTER_PORT)
#   RMA_NP               ranks of the whole job (required)
#   RMA_JOB              the job's name, the same in every member: it is the cluster's name (required)
#   RMA_JOB_SECRET_FILE  the file holding the job secret, the same secret in every member
#                        (required; mount it read-only: never put a secret in the environment;
#                        mode 0600 and owned by this container's user, docker run --user UID:GID:
#                        a secret file others can read or another user owns is refused)
#   RMA_HOST             this member's entry of RMA_MEMBERS (default: the hostname)
#   RMA_ADDRESS          the address this JVM binds and advertises (default: RMA_HOST resolved here)
#   RMA_RANKS            FIRST:COUNT, this JVM's ranks (default: entry k of K runs ranks k*N/K to
#                        (k+1)*N/K-1, as bin/rmarun --host does)
#   RMA_CLUSTER_PORT     Hazelcast's port (default 5701)
#   RMA_BUS_PORT         the clustered event bus's port (default 5702)
#   RMA_DATA_PORT        the data plane's port (default 5703)
#   RMA_TIMEOUT          rmarun's --timeout, in seconds
#   RMA_CONF             the cluster configuration's directory (default conf/examples/multi-host:
#                        TCP-IP join on the members, the fixed port, no port search)
# and bin/rmarun's own: JAVA, RMA_JAVA_OPTS, RMA_JAR.
set -euo pipefail
home="${RMA_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"

if [ -z "${RMA_MEMBERS:-}" ]; then
  exec "$home/bin/rmarun" "$@"
fi

fail() {
  echo "entrypoint: $*" >&2
  exit 2
}
number() { [[ "$2" =~ ^[0-9]+$ ]] || fail "$1=$2 must be a number"; }

np="${RMA_NP:-}"
[ -n "$np" ] || fail "RMA_NP (the job's number of ranks) is required with RMA_MEMBERS"
number RMA_NP "$np"
[ -n "${RMA_JOB:-}" ] || fail "RMA_JOB (the job's name, the same in every member) is required with RMA_MEMBERS"
secret="${RMA_JOB_SECRET_FILE:-}"
[ -n "$secret" ] || fail "RMA_JOB_SECRET_FILE (the file of the job secret, the same in every member) is required with RMA_MEMBERS"
[ -r "$secret" ] || fail "RMA_JOB_SECRET_FILE=$secret cannot be read (mount it, mode 0600, owned by user id $(id -u): docker run --user)"
cluster_port="${RMA_CLUSTER_PORT:-5701}"
bus_port="${RMA_BUS_PORT:-5702}"
data_port="${RMA_DATA_PORT:-5703}"
number RMA_CLUSTER_PORT "$cluster_port"
number RMA_BUS_PORT "$bus_port"
number RMA_DATA_PORT "$data_port"

IFS=',' read -r -a members <<< "$RMA_MEMBERS"
host="${RMA_HOST:-${HOSTNAME:-$(hostname)}}"
index=-1
for k in "${!members[@]}"; do
  m="${members[$k]// /}"
  if [ "$m" = "$host" ] || [ "$m" = "$host:$cluster_port" ]; then
    index=$k
    break
  fi
done
count=${#members[@]}

if [ -n "${RMA_RANKS:-}" ]; then
  ranks="$RMA_RANKS"
else
  [ "$index" -ge 0 ] || fail "RMA_HOST=$host is not an entry of RMA_MEMBERS=$RMA_MEMBERS (set RMA_HOST, or RMA_RANKS)"
  [ "$count" -le "$np" ] || fail "RMA_MEMBERS lists $count members for RMA_NP=$np ranks: each member needs a rank"
  first=$(( index * np / count ))
  ranks="$first:$(( (index + 1) * np / count - first ))"
fi
[ "$index" -ge 0 ] || index=0

address="${RMA_ADDRESS:-}"
if [ -z "$address" ]; then
  address="$(getent ahostsv4 "$host" | awk 'NR == 1 { print $1 }')"
  [ -n "$address" ] || fail "RMA_HOST=$host does not resolve here (set RMA_ADDRESS to this member's address)"
fi
if [ "$count" -gt 1 ] && [[ "$address" == 127.* ]]; then
  fail "RMA_HOST=$host resolves to $address, a loopback address: set RMA_ADDRESS to this member's network address"
fi

conf="${RMA_CONF:-$home/conf/examples/multi-host}"
[ -f "$conf/cluster.xml" ] || fail "RMA_CONF=$conf has no cluster.xml"

export RMA_JOB_SECRET_FILE="$secret"
export RMA_JAVA_OPTS="${RMA_JAVA_OPTS:-} -Drma.conf=$conf -Drma.host=$address -Drma.members=$RMA_MEMBERS \
-Drma.clusterPort=$cluster_port -Drma.busPort=$bus_port -Drma.dataPort=$data_port"
# rmarun without -np, with RMA_MEMBERS and RMA_RANKS set, runs this member's part of the job: the
# ranks RMA_RANKS gives of RMA_NP, job RMA_JOB, JVM number RMA_MEMBER_INDEX (as under mpiexec)
export RMA_NP="$np" RMA_RANKS="$ranks" RMA_MEMBER_INDEX="$index"
args=()
if [ -n "${RMA_TIMEOUT:-}" ]; then
  args+=(--timeout "$RMA_TIMEOUT")
fi
exec "$home/bin/rmarun" ${args[@]+"${args[@]}"} "$@"
