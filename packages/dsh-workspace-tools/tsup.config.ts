export { default } from "../../tsup.package.js";
