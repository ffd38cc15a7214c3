// Starts a throwaway PostgreSQL server, prints the URL of a fresh database on it, and stops the server
// when its standard input closes (its parent ended, however it ended). Used by the consumer test.
import { startTestPostgres } from "./postgres-server.js";

const server = await startTestPostgres();
process.stdout.write(`${await server.createDatabase()}\n`);
process.stdin.resume();
process.stdin.on("end", () => void server.stop().then(() => process.exit(0)));
