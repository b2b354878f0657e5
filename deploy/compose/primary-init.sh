#!/bin/bash
# Runs once in the primary's container, on a new data directory: the
# replica's slot (WAL is kept until it has it) and its right to replicate.
set -euo pipefail
psql -v ON_ERROR_STOP=1 -U postgres -d postgres -c "SELECT pg_create_physical_replication_slot('replica1')"
echo "host replication postgres all scram-sha-256" >>"$PGDATA/pg_hba.conf"
