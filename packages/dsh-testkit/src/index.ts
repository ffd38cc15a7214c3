export { makePng } from "./png.js";
