export { makePng } from "./png.js";
export { captureLog, readmeShowsExample } from "./readme.js";
