import { startTestPostgres } from "./postgres-server.js";
const server = await startTestPostgres();
const url = await server.createDatabase();
console.log(url);
process.on("SIGTERM", async () => { await server.stop(); process.exit(0); });
setInterval(() => undefined, 1 << 30);
