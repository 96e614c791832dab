// A self-signed certificate for the plugin's side of AutoMTLS, built with
// node:crypto alone (Node has no API that writes X.509): an ECDSA P-256 key
// and a DER certificate for "localhost", valid for both TLS ends.
'use strict';
const crypto = require('node:crypto');

function len(n) {
  if (n < 0x80) return Buffer.from([n]);
  const bytes = [];
  for (; n > 0; n >>= 8) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag, body) => Buffer.concat([Buffer.from([tag]), len(body.length), body]);
const seq = (...items) => tlv(0x30, Buffer.concat(items));
const set = (...items) => tlv(0x31, Buffer.concat(items));
const explicit = (n, body) => tlv(0xa0 + n, body);
const int = (buf) => tlv(0x02, buf[0] & 0x80 ? Buffer.concat([Buffer.from([0]), buf]) : buf);
const bool = (v) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const octets = (buf) => tlv(0x04, buf);
const bits = (buf) => tlv(0x03, Buffer.concat([Buffer.from([0]), buf]));
const utf8 = (s) => tlv(0x0c, Buffer.from(s, 'utf8'));
const time = (d) => tlv(0x18, Buffer.from(d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'));

function oid(dotted) {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0] + parts[1]];
  for (const p of parts.slice(2)) {
    const chunk = [p & 0x7f];
    for (let v = p >> 7; v > 0; v >>= 7) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

const ext = (id, critical, value) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

// selfSigned returns {certPEM, keyPEM, der}.
function selfSigned() {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaSHA256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), utf8('localhost'))));
  const now = Date.now();
  const tbs = seq(
    explicit(0, int(Buffer.from([2]))), // v3
    int(crypto.randomBytes(16)),
    ecdsaSHA256,
    name,
    seq(time(new Date(now - 30_000)), time(new Date(now + 365 * 24 * 3600_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(
      ext('2.5.29.19', true, seq(bool(true))), // basicConstraints: CA (it verifies itself)
      ext('2.5.29.15', true, tlv(0x03, Buffer.from([0x02, 0xa4]))), // keyUsage: digitalSignature, keyCertSign
      ext('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'), oid('1.3.6.1.5.5.7.3.2'))), // serverAuth, clientAuth
      ext('2.5.29.17', false, seq(tlv(0x82, Buffer.from('localhost')))), // subjectAltName DNS:localhost
    )),
  );
  const der = seq(tbs, ecdsaSHA256, bits(crypto.sign('sha256', tbs, privateKey)));
  const b64 = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return {
    der,
    certPEM: Buffer.from(`-----BEGIN CERTIFICATE-----\n${b64}-----END CERTIFICATE-----\n`),
    keyPEM: Buffer.from(privateKey.export({ type: 'pkcs8', format: 'pem' })),
  };
}

module.exports = { selfSigned };
