export { workspaceTools, type WorkspaceToolOptions } from "./workspace-tools.js";
