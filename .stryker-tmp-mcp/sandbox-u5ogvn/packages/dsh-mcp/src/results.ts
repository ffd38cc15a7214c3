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
import { putImage, type AttachmentStore } from "dsh-attachments";
import type { ToolOutcome } from "dsh-agent";
import type { DeepReadonly, UserContent } from "dsh-llm";

/** A tool result as an MCP server sends it (`tools/call`), as far as dsh reads it. */
export interface McpCallResult {
  readonly content?: readonly {
    readonly type: string;
    readonly [key: string]: unknown;
  }[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}
type Block = DeepReadonly<UserContent>;
async function imageBlock(part: {
  readonly [key: string]: unknown;
}, attachments: AttachmentStore | undefined): Promise<Block> {
  if (stryMutAct_9fa48("118")) {
    {}
  } else {
    stryCov_9fa48("118");
    const mime = String(stryMutAct_9fa48("119") ? part.mimeType && "image" : (stryCov_9fa48("119"), part.mimeType ?? (stryMutAct_9fa48("120") ? "" : (stryCov_9fa48("120"), "image"))));
    const bytes = Buffer.from(String(stryMutAct_9fa48("121") ? part.data && "" : (stryCov_9fa48("121"), part.data ?? (stryMutAct_9fa48("122") ? "Stryker was here!" : (stryCov_9fa48("122"), "")))), stryMutAct_9fa48("123") ? "" : (stryCov_9fa48("123"), "base64"));
    if (stryMutAct_9fa48("126") ? attachments !== undefined : stryMutAct_9fa48("125") ? false : stryMutAct_9fa48("124") ? true : (stryCov_9fa48("124", "125", "126"), attachments === undefined)) return stryMutAct_9fa48("127") ? {} : (stryCov_9fa48("127"), {
      type: stryMutAct_9fa48("128") ? "" : (stryCov_9fa48("128"), "text"),
      text: stryMutAct_9fa48("129") ? `` : (stryCov_9fa48("129"), `[${mime} image, ${bytes.length} bytes: no attachment store to keep it]`)
    });
    try {
      if (stryMutAct_9fa48("130")) {
        {}
      } else {
        stryCov_9fa48("130");
        return stryMutAct_9fa48("131") ? {} : (stryCov_9fa48("131"), {
          type: stryMutAct_9fa48("132") ? "" : (stryCov_9fa48("132"), "image"),
          image: await putImage(attachments, bytes)
        });
      }
    } catch (error) {
      if (stryMutAct_9fa48("133")) {
        {}
      } else {
        stryCov_9fa48("133");
        return stryMutAct_9fa48("134") ? {} : (stryCov_9fa48("134"), {
          type: stryMutAct_9fa48("135") ? "" : (stryCov_9fa48("135"), "text"),
          text: stryMutAct_9fa48("136") ? `` : (stryCov_9fa48("136"), `[${mime} image, ${bytes.length} bytes, not kept: ${(error as Error).message}]`)
        });
      }
    }
  }
}

/** One content item as model-visible blocks: text as is, images through the attachment store, the rest named. */
async function blockOf(part: {
  readonly type: string;
  readonly [key: string]: unknown;
}, attachments: AttachmentStore | undefined): Promise<Block> {
  if (stryMutAct_9fa48("137")) {
    {}
  } else {
    stryCov_9fa48("137");
    switch (part.type) {
      case stryMutAct_9fa48("139") ? "" : (stryCov_9fa48("139"), "text"):
        if (stryMutAct_9fa48("138")) {} else {
          stryCov_9fa48("138");
          return stryMutAct_9fa48("140") ? {} : (stryCov_9fa48("140"), {
            type: stryMutAct_9fa48("141") ? "" : (stryCov_9fa48("141"), "text"),
            text: String(stryMutAct_9fa48("142") ? part.text && "" : (stryCov_9fa48("142"), part.text ?? (stryMutAct_9fa48("143") ? "Stryker was here!" : (stryCov_9fa48("143"), ""))))
          });
        }
      case stryMutAct_9fa48("145") ? "" : (stryCov_9fa48("145"), "image"):
        if (stryMutAct_9fa48("144")) {} else {
          stryCov_9fa48("144");
          return imageBlock(part, attachments);
        }
      case stryMutAct_9fa48("147") ? "" : (stryCov_9fa48("147"), "resource"):
        if (stryMutAct_9fa48("146")) {} else {
          stryCov_9fa48("146");
          {
            if (stryMutAct_9fa48("148")) {
              {}
            } else {
              stryCov_9fa48("148");
              const resource = (part.resource ?? {}) as {
                readonly uri?: unknown;
                readonly text?: unknown;
              };
              return stryMutAct_9fa48("149") ? {} : (stryCov_9fa48("149"), {
                type: stryMutAct_9fa48("150") ? "" : (stryCov_9fa48("150"), "text"),
                text: (stryMutAct_9fa48("153") ? typeof resource.text !== "string" : stryMutAct_9fa48("152") ? false : stryMutAct_9fa48("151") ? true : (stryCov_9fa48("151", "152", "153"), typeof resource.text === (stryMutAct_9fa48("154") ? "" : (stryCov_9fa48("154"), "string")))) ? resource.text : stryMutAct_9fa48("155") ? `` : (stryCov_9fa48("155"), `[resource ${String(resource.uri)}]`)
              });
            }
          }
        }
      case stryMutAct_9fa48("157") ? "" : (stryCov_9fa48("157"), "resource_link"):
        if (stryMutAct_9fa48("156")) {} else {
          stryCov_9fa48("156");
          return stryMutAct_9fa48("158") ? {} : (stryCov_9fa48("158"), {
            type: stryMutAct_9fa48("159") ? "" : (stryCov_9fa48("159"), "text"),
            text: stryMutAct_9fa48("160") ? `` : (stryCov_9fa48("160"), `[resource ${String(part.uri)}${(stryMutAct_9fa48("163") ? typeof part.name !== "string" : stryMutAct_9fa48("162") ? false : stryMutAct_9fa48("161") ? true : (stryCov_9fa48("161", "162", "163"), typeof part.name === (stryMutAct_9fa48("164") ? "" : (stryCov_9fa48("164"), "string")))) ? stryMutAct_9fa48("165") ? `` : (stryCov_9fa48("165"), ` (${part.name})`) : stryMutAct_9fa48("166") ? "Stryker was here!" : (stryCov_9fa48("166"), "")}]`)
          });
        }
      default:
        if (stryMutAct_9fa48("167")) {} else {
          stryCov_9fa48("167");
          return stryMutAct_9fa48("168") ? {} : (stryCov_9fa48("168"), {
            type: stryMutAct_9fa48("169") ? "" : (stryCov_9fa48("169"), "text"),
            text: stryMutAct_9fa48("170") ? `` : (stryCov_9fa48("170"), `[${part.type} content${(stryMutAct_9fa48("173") ? typeof part.mimeType !== "string" : stryMutAct_9fa48("172") ? false : stryMutAct_9fa48("171") ? true : (stryCov_9fa48("171", "172", "173"), typeof part.mimeType === (stryMutAct_9fa48("174") ? "" : (stryCov_9fa48("174"), "string")))) ? stryMutAct_9fa48("175") ? `` : (stryCov_9fa48("175"), `, ${part.mimeType}`) : stryMutAct_9fa48("176") ? "Stryker was here!" : (stryCov_9fa48("176"), "")}]`)
          });
        }
    }
  }
}

/**
 * An MCP tool result as the `tool/result` the model sees: text, images kept in the attachment store
 * (a reference in the log, the bytes as a content-addressed object), other content named in text,
 * structured content as its JSON when the server sent nothing else, and `isError` as is.
 */
export async function toolOutcome(result: McpCallResult, attachments: AttachmentStore | undefined): Promise<ToolOutcome> {
  if (stryMutAct_9fa48("177")) {
    {}
  } else {
    stryCov_9fa48("177");
    const content: Block[] = stryMutAct_9fa48("178") ? ["Stryker was here"] : (stryCov_9fa48("178"), []);
    for (const part of stryMutAct_9fa48("179") ? result.content && [] : (stryCov_9fa48("179"), result.content ?? (stryMutAct_9fa48("180") ? ["Stryker was here"] : (stryCov_9fa48("180"), [])))) content.push(await blockOf(part, attachments));
    if (stryMutAct_9fa48("183") ? content.length === 0 || result.structuredContent !== undefined : stryMutAct_9fa48("182") ? false : stryMutAct_9fa48("181") ? true : (stryCov_9fa48("181", "182", "183"), (stryMutAct_9fa48("185") ? content.length !== 0 : stryMutAct_9fa48("184") ? true : (stryCov_9fa48("184", "185"), content.length === 0)) && (stryMutAct_9fa48("187") ? result.structuredContent === undefined : stryMutAct_9fa48("186") ? true : (stryCov_9fa48("186", "187"), result.structuredContent !== undefined)))) content.push(stryMutAct_9fa48("188") ? {} : (stryCov_9fa48("188"), {
      type: stryMutAct_9fa48("189") ? "" : (stryCov_9fa48("189"), "text"),
      text: JSON.stringify(result.structuredContent)
    }));
    return stryMutAct_9fa48("190") ? {} : (stryCov_9fa48("190"), {
      content,
      isError: stryMutAct_9fa48("193") ? result.isError !== true : stryMutAct_9fa48("192") ? false : stryMutAct_9fa48("191") ? true : (stryCov_9fa48("191", "192", "193"), result.isError === (stryMutAct_9fa48("194") ? false : (stryCov_9fa48("194"), true))),
      additionalContexts: stryMutAct_9fa48("195") ? ["Stryker was here"] : (stryCov_9fa48("195"), [])
    });
  }
}