export { DshError, isDshError } from "./errors.js";
export { createFileDurably, syncPath, type CreateFileOptions } from "./durable-file.js";
export { describeIssues, type SchemaIssue } from "./issues.js";
export { ConfinedFileError, openConfined, readHead, type ConfinedFileErrorCode } from "./confined-file.js";
export { maskUrlPassword } from "./mask-url.js";
export { clipText, loneSurrogateIndex, truncateText } from "./text.js";
