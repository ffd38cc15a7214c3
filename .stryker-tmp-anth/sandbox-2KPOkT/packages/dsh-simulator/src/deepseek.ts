/** The DeepSeek V4 models the simulator plays: thinking on unless the request turns it off. */
const V4_MODELS: ReadonlySet<string> = new Set(["deepseek-v4-flash", "deepseek-v4-pro"]);
/** Names DeepSeek retired, answered the way DeepSeek answers an unknown model. */
const RETIRED_MODELS: ReadonlySet<string> = new Set(["deepseek-chat", "deepseek-reasoner"]);

/** The reasoning a thinking-mode reply streams when its script gives none. */
export const DEFAULT_REASONING = "Let me work out the next step.";

/** How the simulator treats one request body as DeepSeek V4 would. */
export type DeepseekVerdict =
  | { readonly refused: true; readonly status: number; readonly message: string }
  | { readonly refused: false; readonly thinking: boolean };

interface WireAssistant {
  readonly role?: unknown;
  readonly tool_calls?: unknown;
  readonly reasoning_content?: unknown;
}

/**
 * DeepSeek's rules for a request: a retired model name does not exist; on a V4 model, thinking is
 * on unless `thinking.type` is `disabled`, and in thinking mode every earlier assistant turn that
 * made tool calls must carry its `reasoning_content` back, or the request is refused with HTTP 400.
 */
export function deepseekVerdict(body: { readonly model?: unknown; readonly messages?: unknown; readonly thinking?: unknown }): DeepseekVerdict {
  const model = typeof body.model === "string" ? body.model : "";
  if (RETIRED_MODELS.has(model)) return { refused: true, status: 400, message: "Model Not Exist" };
  if (!V4_MODELS.has(model)) return { refused: false, thinking: false };
  const toggle = (body.thinking as { type?: unknown } | undefined)?.type;
  const thinking = toggle !== "disabled";
  if (thinking && Array.isArray(body.messages)) {
    for (const message of body.messages as readonly WireAssistant[]) {
      const calledTools = message.role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
      if (calledTools && (typeof message.reasoning_content !== "string" || message.reasoning_content === "")) {
        return { refused: true, status: 400, message: "The reasoning_content in the thinking mode must be passed back to the API." };
      }
    }
  }
  return { refused: false, thinking };
}
