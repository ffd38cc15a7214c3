import { storesBench } from "./stores.js";
console.log(JSON.stringify(await storesBench(process.argv[2] === "quick"), null, 1));
