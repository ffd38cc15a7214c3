// `pnpm demo`: the end-to-end walk-through arrives with the dsh CLI; until then say so plainly.
console.log("dsh demo: not built yet. The CLI and provider simulator land with the CLI issue.");
console.log("Run `pnpm test` to exercise the packages that exist today.");
