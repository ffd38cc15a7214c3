import { expect, it } from "vitest";
import { maskUrlPassword } from "./mask-url.js";

it("masks a password and nothing else, and keeps only the scheme of what does not parse", () => {
  expect(maskUrlPassword("postgres://dsh:s3cret@db.internal:5432/sessions")).toBe("postgres://dsh:***@db.internal:5432/sessions");
  expect(maskUrlPassword("postgres://db.internal/sessions")).toBe("postgres://db.internal/sessions");
  expect(maskUrlPassword("postgres://dsh:s3cret@[bad")).toBe("postgres://…");
  expect(maskUrlPassword("dsh:s3cret")).toBe("dsh:s3cret");
  expect(maskUrlPassword("not a url: s3cret")).toBe("…");
});
