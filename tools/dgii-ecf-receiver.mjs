// dgii-ecf-receiver.mjs plays a taxpayer whose receiver services are built
// from the open npm toolkit dgii-ecf's helpers, as its README shows
// (CustomAuthentication, SenderReceiver, Signature, validateXMLCertificate):
// Sello's outbound client delivers e-CFs to it and sends it ACECFs.
// TestDGIIECFReceiver (../worker) runs it with node and checks what it
// reports and what Sello recorded.
//
//   node dgii-ecf-receiver.mjs INPUT.json
//
// SELLO_NODE_MODULES names the node_modules folder that holds dgii-ecf
// (oracle.NodeModules installs tools/package.json's pins there). INPUT
// gives the loopback port to listen on, the company's RNC and its .p12.
// The script prints "listening" on a line once it listens; when its
// standard input ends it stops and prints the report, one JSON line: what
// each call brought and what the receiver answered. Nothing here judges
// Sello except the toolkit's own checks (its signature verifier, its seed
// and token checks).
//
// The services, at any path prefix (a hosted receiver's base URL), case
// insensitive (DGII's contract):
//
//	GET  …/fe/autenticacion/api/semilla               CustomAuthentication.generateSeed
//	POST …/fe/autenticacion/api/validacioncertificado SenderReceiver.parseMultipart, then
//	     the seed's valor one the receiver issued and not used (*), the signature
//	     by validateXMLCertificate, CustomAuthentication.verifySignedSeed (the
//	     digest) → its JWT, answered as DGII's {token, expira, expedido} (*)
//	POST …/fe/recepcion/api/ecf                        Bearer by CustomAuthentication.verifyToken,
//	     parseMultipart, validateXMLCertificate, SenderReceiver.getECFDataFromXML
//	     (Estado 0, or 1 code 2 for a signature that does not verify),
//	     Signature.signXml(…, 'ARECF') → the signed ARECF
//	POST …/fe/aprobacioncomercial/api/ecf              Bearer as above, parseMultipart,
//	     validateXMLCertificate, the fields by Transformer.xml2Json → 200, or
//	     400 when the signature does not verify or the ACECF is not about
//	     this company (*)
//
// (*) The toolkit has nothing for these: the few lines here are the
// minimum (a set of issued seeds; the token's JSON; the RNC check).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const modules = process.env.SELLO_NODE_MODULES;
if (!modules) {
  console.error('SELLO_NODE_MODULES is not set');
  process.exit(2);
}
const require = createRequire(path.join(modules, 'dgii-ecf-receiver.cjs'));
const {
  P12Reader,
  Signature,
  SenderReceiver,
  ReceivedStatus,
  NoReceivedCode,
  CustomAuthentication,
  Transformer,
  validateXMLCertificate,
} = require('dgii-ecf');

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const company = new P12Reader(input.password).getKeyFromFile(input.p12);
const auth = new CustomAuthentication(company);
const senderReceiver = new SenderReceiver();
const signature = new Signature(company.key, company.cert);

const report = {
  toolkit: require('dgii-ecf/package.json').version,
  seeds: [], // each seed issued: its valor
  validations: [], // each signed seed posted: its check and answer
  ecfs: [], // each e-CF posted
  approvals: [], // each ACECF posted
  refused: [], // calls refused before their body was read: method, path, status
};
const issued = new Set(); // the valor of the seeds issued and not yet used

// fields are the children of a document's detail group, in order, as
// [name, text] (the toolkit's XML-to-JSON transformer reads it).
const fields = (xml, root, detail) => {
  const doc = new Transformer().xml2Json(xml);
  return Object.entries(doc?.[root]?.[detail] ?? {}).map(([k, v]) => [k, v?._text ?? null]);
};
const field = (fs, name) => fs.find(([k]) => k === name)?.[1] ?? null;

// dgiiTime is t as DGII's token times: UTC, yyyy-MM-ddTHH:mm:ssZ.
const dgiiTime = (t) => t.toISOString().replace(/\.\d{3}Z$/, 'Z');

const readBody = (req) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

// bearer checks the request's token with the toolkit: the token's claims,
// or null when there is none or it does not verify or has expired.
const bearer = async (req) => {
  const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return null;
  try {
    const { decoded, isExpired } = await auth.verifyToken(m[1]);
    return isExpired ? null : decoded;
  } catch {
    return null;
  }
};

// signer is what validateXMLCertificate says of a signed document.
const signer = (xml) => {
  const check = validateXMLCertificate(xml, { silent: true });
  return {
    signatureValid: check.isValid,
    signatureError: check.error ?? null,
    subject: check.cert?.subject ?? null,
    fingerprint256: check.cert?.fingerprint256 ?? null,
  };
};

const send = (res, status, type, body) => {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
};

const routes = {
  'GET /fe/autenticacion/api/semilla': async (req, res) => {
    const seed = auth.generateSeed();
    const valor = new Transformer().xml2Json(seed).SemillaModel.valor._text;
    issued.add(valor);
    report.seeds.push(valor);
    send(res, 200, 'application/xml; charset=utf-8', seed);
  },
  'POST /fe/autenticacion/api/validacioncertificado': async (req, res, body) => {
    const { filename, xmlContent } = await senderReceiver.parseMultipart(body, req.headers['content-type']);
    const valor = new Transformer().xml2Json(xmlContent)?.SemillaModel?.valor?._text ?? null;
    const v = { filename, signed: xmlContent, valor, issued: issued.has(valor), ...signer(xmlContent) };
    report.validations.push(v);
    if (!v.issued || !v.signatureValid) {
      v.status = 401;
      return send(res, 401, 'application/json', JSON.stringify({ mensaje: 'Semilla o firma no válida' }));
    }
    issued.delete(valor);
    try {
      const token = await auth.verifySignedSeed(xmlContent);
      const { decoded } = await auth.verifyToken(token);
      v.status = 200;
      v.token = token;
      send(res, 200, 'application/json', JSON.stringify({
        token,
        expira: dgiiTime(new Date(decoded.exp * 1000)),
        expedido: dgiiTime(new Date(decoded.iat * 1000)),
      }));
    } catch (err) {
      v.status = 401;
      v.error = err.message;
      send(res, 401, 'application/json', JSON.stringify({ mensaje: err.message }));
    }
  },
  'POST /fe/recepcion/api/ecf': async (req, res, body) => {
    const { filename, xmlContent } = await senderReceiver.parseMultipart(body, req.headers['content-type']);
    const e = { filename, received: xmlContent, ...signer(xmlContent) };
    report.ecfs.push(e);
    const unsigned = e.signatureValid
      ? senderReceiver.getECFDataFromXML(xmlContent, input.rnc, ReceivedStatus['e-CF Recibido'])
      : senderReceiver.getECFDataFromXML(xmlContent, input.rnc, ReceivedStatus['e-CF No Recibido'], NoReceivedCode['Error de Firma Digital']);
    e.arecf = signature.signXml(unsigned, 'ARECF');
    e.arecfFields = fields(e.arecf, 'ARECF', 'DetalleAcusedeRecibo');
    send(res, 200, 'application/xml; charset=utf-8', e.arecf);
  },
  'POST /fe/aprobacioncomercial/api/ecf': async (req, res, body) => {
    const { filename, xmlContent } = await senderReceiver.parseMultipart(body, req.headers['content-type']);
    const a = { filename, received: xmlContent, ...signer(xmlContent), fields: fields(xmlContent, 'ACECF', 'DetalleAprobacionComercial') };
    report.approvals.push(a);
    a.status = a.signatureValid && field(a.fields, 'RNCEmisor') === input.rnc ? 200 : 400;
    send(res, a.status, 'text/plain; charset=utf-8', a.status === 200 ? 'Aprobación comercial recibida' : 'Aprobación comercial no válida');
  },
};

const server = http.createServer(async (req, res) => {
  const p = new URL(req.url, 'http://x').pathname.toLowerCase();
  const key = Object.keys(routes).find((k) => {
    const [method, suffix] = k.split(' ');
    return req.method === method && p.endsWith(suffix);
  });
  const refuse = (status) => {
    report.refused.push({ method: req.method, path: p, status });
    send(res, status, 'text/plain', String(status));
  };
  if (!key) return refuse(404);
  // Every service but the authentication's asks for the token.
  if (!key.includes('/fe/autenticacion/') && !(await bearer(req))) return refuse(401);
  try {
    await routes[key](req, res, await readBody(req));
  } catch (err) {
    report.refused.push({ method: req.method, path: p, status: 400, error: String(err?.message ?? err) });
    if (!res.headersSent) send(res, 400, 'text/plain', 'Solicitud no válida');
  }
});

server.listen(input.port, '127.0.0.1', () => process.stdout.write('listening\n'));
process.stdin.resume();
process.stdin.on('end', () => {
  server.close();
  // Exit once the report is written: a pipe may take it in pieces.
  process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(0));
});
