// Preloaded by bin/appliance-server (`node --require`) before the service's modules are parsed:
// an older Node would otherwise fail on them with a SyntaxError and print the minified bundle's
// source line (30 KB). Plain CommonJS that every Node version parses.
'use strict';
var MIN_MAJOR = 24;
var found = process.versions.node;
if (Number(found.split('.')[0]) < MIN_MAJOR) {
  process.stderr.write(
    'appliance-server: Node ' +
      MIN_MAJOR +
      ' or later is required (found ' +
      found +
      ', ' +
      process.execPath +
      '): point APPLIANCE_NODE at a Node ' +
      MIN_MAJOR +
      ' binary (docs/install.md, "Node 24").\n',
  );
  process.exit(1);
}
