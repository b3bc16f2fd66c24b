// $ref resolver for `spectral lint --resolver`: resolves nothing.
// An MCP inputSchema is a standalone JSON Schema, so "#/$defs/x" points into the
// inputSchema, not into the tools/list document; Spectral's default resolver would
// look it up from the file root and report every such $ref as invalid-ref.
// toolschema-lint does not dereference either, so both tools see the same tree.
const { createRequire } = require('module');
// Load the resolver library next to whichever spectral-cli is running.
const req = createRequire(require.main ? require.main.filename : process.argv[1]);
const { Resolver } = req('@stoplight/spectral-ref-resolver');

module.exports = new Resolver({ dereferenceInline: false, dereferenceRemote: false });
