// The MySQL driver (mysql2, with its character set tables and the cloud providers' TLS
// certificates), in one module the bundles keep in a file of their own (dist/mysqlDriver.js,
// see esbuild.js), read only when a mysql:// target connects: inside dist/cli.js its 1 MB were
// parsed by every dq run.

export { createConnection } from 'mysql2';
