function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
import { DshError } from "dsh-base";

/** Stable codes of the errors `dsh-mcp` throws. */
export type McpErrorCode = /** A server spec names neither a command nor a URL, or both. */
"MCP_INVALID_SERVER"
/** A server could not be started or reached, or did not answer the handshake or the tool list. */ | "MCP_CONNECT"
/** A server offers a tool dsh cannot offer a model (a name outside `[A-Za-z0-9_-]{1,64}`, a schema that is not JSON). */ | "MCP_INVALID_TOOL"
/** Two servers, or a server and a built-in tool, offer the same name. */ | "MCP_NAME_COLLISION";

/** A failure to connect MCP servers or to offer their tools; `code` says which. */
export class McpError extends DshError<McpErrorCode> {
  override name = stryMutAct_9fa48("117") ? "" : (stryCov_9fa48("117"), "McpError");
}