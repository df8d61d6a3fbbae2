# Sourced by .ci/run: a throwaway PostgreSQL 15 cluster for the tests that need
# a server. Installs the server when missing, starts a cluster in a temporary
# folder listening on loopback and on a socket there, exports its URL as
# STRATA_POSTGRES_URL (and STRATA_REQUIRE_POSTGRES=1, so those tests fail rather
# than skip), and stops it and removes the folder when the calling script exits.

postgres_bin=/usr/lib/postgresql/15/bin

start_postgres() {
    if [ ! -x "$postgres_bin/initdb" ]; then
        echo "Installing postgresql-15"
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq postgresql-15
    fi
    pg_dir="$(mktemp -d)"
    # initdb refuses to run as root: the cluster belongs to the postgres user then.
    if [ "$(id -u)" = 0 ]; then
        chown postgres:postgres "$pg_dir"
        as_owner=(runuser -u postgres --)
        owner=postgres
    else
        as_owner=()
        owner="$(id -un)"
    fi
    pg_port="${STRATA_POSTGRES_PORT:-54329}"
    "${as_owner[@]}" "$postgres_bin/initdb" -D "$pg_dir/data" -U strata --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    "${as_owner[@]}" "$postgres_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w \
        -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400" start >/dev/null
    trap stop_postgres EXIT
    "${as_owner[@]}" "$postgres_bin/psql" -h 127.0.0.1 -p "$pg_port" -U strata -d postgres -qc "CREATE DATABASE strata" >/dev/null
    export STRATA_POSTGRES_URL="postgres://strata@127.0.0.1:$pg_port/strata"
    export STRATA_REQUIRE_POSTGRES=1
    echo "PostgreSQL 15 is listening on 127.0.0.1:$pg_port (cluster owned by $owner)"
}

stop_postgres() {
    "${as_owner[@]}" "$postgres_bin/pg_ctl" -D "$pg_dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$pg_dir"
}
