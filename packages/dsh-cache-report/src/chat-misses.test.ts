import type { EpochHeader } from "dsh-header";
import { describe, expect, it } from "vitest";
import { chatMisses } from "./chat-misses.js";

const deepseek: EpochHeader = { config: { provider: "deepseek", model: "deepseek-v4-flash" }, wire: { api: "chat-completions", dialect: "deepseek" } };
const openai: EpochHeader = { config: { provider: "openai", model: "gpt-5.2" }, wire: { api: "chat-completions", dialect: "openai" } };
const sim: EpochHeader = { config: { provider: "sim", model: "sim-1" }, wire: { api: "chat-completions", dialect: "deepseek" } };
const at = (header: EpochHeader, minutes: number) => ({ header, time: 1_000_000 + minutes * 60_000 });

describe("chatMisses", () => {
  it("finds no miss when every whole unit of the repeated prefix was read, or when no usage was reported", () => {
    expect(chatMisses(at(deepseek, 0), at(deepseek, 1), 346, 320)).toEqual([]);
    expect(chatMisses(at(deepseek, 0), at(deepseek, 1), 346, undefined)).toEqual([]);
    // OpenAI caches nothing under 1024 tokens and reads in 128-token steps.
    expect(chatMisses(at(openai, 0), at(openai, 1), 1000, 0)).toEqual([]);
    expect(chatMisses(at(openai, 0), at(openai, 1), 1300, 1280)).toEqual([]);
  });

  it("calls a miss after a pause longer than the provider keeps an unused prefix a cold cache", () => {
    expect(chatMisses(at(openai, 0), at(openai, 12), 2000, 0)).toEqual(["cold cache: 12 min since the previous request, and OpenAI keeps an unused prefix 5 to 10 minutes, at most an hour"]);
    expect(chatMisses(at(deepseek, 0), at(deepseek, 150), 640, 0)).toEqual(["cold cache: 2 h 30 min since the previous request, and DeepSeek keeps an unused prefix best effort, usually for hours"]);
    const extended: EpochHeader = { ...openai, config: { ...openai.config, extensions: { prompt_cache_retention: "24h" } } };
    expect(chatMisses(at(extended, 0), at(extended, 12), 2000, 0)).toEqual([
      "OpenAI read 0 of the 1920 repeated tokens it could have: its cache is best effort (an evicted prefix, another machine), kept up to 24 hours (extended retention)",
    ]);
  });

  it("names a shorter read soon after as the provider's best effort, and the simulator's cache by its file", () => {
    expect(chatMisses(at(deepseek, 0), at(deepseek, 1), 346, 64)).toEqual([
      "DeepSeek read 64 of the 320 repeated tokens it could have: its cache is best effort (an evicted prefix, another machine), kept best effort, usually for hours",
    ]);
    expect(chatMisses(at(sim, 0), at(sim, 600), 128, 0)).toEqual([
      "the simulator read 0 of the 128 repeated tokens it could have: its cache is best effort (an evicted prefix, another machine), kept in .dsh/simulator-cache.json of the directory it ran in",
    ]);
  });

  it("reads an Anthropic-format endpoint that ignores cache_control by its own rules, and says so", () => {
    const deepseekAnthropic: EpochHeader = { config: { provider: "anthropic", model: "deepseek-v4-flash" }, wire: { api: "messages", automaticCache: true } };
    expect(chatMisses(at(deepseekAnthropic, 0), at(deepseekAnthropic, 1), 346, 64)).toEqual([
      "DeepSeek's Anthropic-format API (it ignores cache_control and caches prefixes on its own) read 64 of the 320 repeated tokens it could have: its cache is best effort (an evicted prefix, another machine), kept best effort, usually for hours",
    ]);
  });
});
