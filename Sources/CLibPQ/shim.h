// libpq, PostgreSQL's C client (Debian's libpq-dev): connection strings and URIs, ~/.pgpass and
// PGPASSFILE, TLS negotiation (sslmode=prefer by default) and COPY, as the server's own tools use them.
#include <libpq-fe.h>
