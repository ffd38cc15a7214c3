import pg from "pg";
const base = process.argv[2]!;
const c = new pg.Client({ connectionString: base }); await c.connect();
const name = `fresh_${Date.now()}`; await c.query(`CREATE DATABASE ${name}`); await c.end();
console.log(base.replace(/\/[^/]+$/, `/${name}`));
