#!/usr/bin/env -S node --preserve-symlinks-main
// harness-tool-node-wordcount: a harness tool plugin in Node.js, written
// from docs/protocol.md alone. Its tool word_count counts the words of a
// text and reports progress once per line.
//
// The host runs this file from a verified, sealed copy (/proc/self/fd/3),
// so it cannot find its own folder from its path: the plugin block's env
// names it (WORDCOUNT_HOME, the folder holding node_modules and the .proto
// files), and node must not resolve the path it runs (--preserve-symlinks-main).
'use strict';

const path = require('node:path');
const home = process.env.WORDCOUNT_HOME;
if (!home) {
  process.stderr.write('wordcount: WORDCOUNT_HOME is not set: set it in the plugin block\'s env to the folder of wordcount.js\n');
  process.exit(1);
}
const { createRequire } = require('node:module');
const local = createRequire(path.join(home, 'wordcount.js'));
const grpc = local('@grpc/grpc-js');
const protoLoader = local('@grpc/proto-loader');
const { selfSigned } = local('./cert.js');

// 1. The handshake: refuse to run outside a harness host.
const COOKIE_KEY = 'HARNESS_PLUGIN_MAGIC_COOKIE';
const COOKIE_VALUE = '9c1b6f0e4d2a4c7e8b3f5a61e0d27c94';
if (process.env[COOKIE_KEY] !== COOKIE_VALUE) {
  process.stderr.write('This is a harness plugin: harness starts it, you do not.\n');
  process.exit(1);
}
const versions = (process.env.PLUGIN_PROTOCOL_VERSIONS || '1').split(',');
if (!versions.includes('1')) {
  process.stderr.write(`wordcount: speaks plugin protocol 1; the host offers ${versions}\n`);
  process.exit(1);
}

// Logs go to stderr as JSON lines (hclog's format); stdout carries only the
// handshake line.
function log(level, msg, fields = {}) {
  process.stderr.write(JSON.stringify({ '@level': level, '@message': msg, '@timestamp': new Date().toISOString(), ...fields }) + '\n');
}

// 2. The services, from the protocol's .proto files.
const load = (file, dirs) => grpc.loadPackageDefinition(protoLoader.loadSync(file, {
  includeDirs: dirs, keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true,
}));
const sdkProto = path.join(home, '..', '..', '..', 'sdk', 'proto');
const tool = load('toolv1/tool.proto', [sdkProto]).harness.tool.v1;
const health = load('health.proto', [home]).grpc.health.v1;
const goplugin = load('goplugin.proto', [home]).plugin;

const MAX = 256 << 20; // the protocol's message size limit, both ways
const server = new grpc.Server({ 'grpc.max_receive_message_length': MAX, 'grpc.max_send_message_length': MAX });

const inputSchema = {
  type: 'object',
  properties: { text: { type: 'string', description: 'The text whose words to count.' } },
  required: ['text'],
  additionalProperties: false,
};

server.addService(tool.Tool.service, {
  Describe(_call, cb) {
    cb(null, {
      plugin_name: 'node-wordcount',
      plugin_version: '1.0.0',
      tools: [{
        name: 'word_count',
        description: 'Count the words of a text (runs of characters between white space), line by line.',
        input_schema_json: Buffer.from(JSON.stringify(inputSchema)),
        capabilities: { reads: false, writes: false, executes: false, network: false },
      }],
    });
  },
  Configure(_call, cb) {
    cb(null, {});
  },
  Execute(call) {
    const req = call.request;
    let args;
    try {
      args = JSON.parse(Buffer.from(req.arguments_json).toString('utf8'));
    } catch (e) {
      call.write({ result: { error: { kind: 'invalid_args', message: `arguments are not JSON: ${e.message}` } } });
      call.end();
      return;
    }
    if (typeof args.text !== 'string') {
      call.write({ result: { error: { kind: 'invalid_args', message: 'text must be a string' } } });
      call.end();
      return;
    }
    let total = 0;
    args.text.split('\n').forEach((line, i) => {
      const n = line.split(/\s+/).filter(Boolean).length;
      total += n;
      call.write({ progress: { stream: 'stdout', text: `line ${i + 1}: ${n} words\n` } });
    });
    call.write({ result: { content: `${total} words` } });
    call.end();
  },
});

server.addService(health.Health.service, {
  Check(_call, cb) {
    cb(null, { status: 'SERVING' });
  },
});

server.addService(goplugin.GRPCController.service, {
  Shutdown(_call, cb) {
    cb(null, {});
    setImmediate(() => server.tryShutdown(() => process.exit(0)));
  },
});

// 3. TLS when the host asks for it (AutoMTLS): trust only its certificate,
// answer with ours in the handshake line.
let creds = grpc.ServerCredentials.createInsecure();
let serverCert = '';
if (process.env.PLUGIN_CLIENT_CERT) {
  const mine = selfSigned();
  creds = grpc.ServerCredentials.createSsl(Buffer.from(process.env.PLUGIN_CLIENT_CERT),
    [{ cert_chain: mine.certPEM, private_key: mine.keyPEM }], true);
  serverCert = mine.der.toString('base64').replace(/=+$/, '');
}

// 4. Listen, then print the handshake line:
//    CORE-PROTOCOL|APP-PROTOCOL|NETWORK|ADDRESS|PROTOCOL|SERVER-CERT
server.bindAsync('127.0.0.1:0', creds, (err, port) => {
  if (err) {
    log('error', 'listen failed', { error: err.message });
    process.exit(1);
  }
  process.stdout.write(`1|1|tcp|127.0.0.1:${port}|grpc|${serverCert}\n`);
  log('debug', 'serving', { port });
});

// The host closing our stdin, or a signal, ends the plugin.
process.on('SIGTERM', () => process.exit(0));
