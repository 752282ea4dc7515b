// dgii-ecf-wire.mjs plays a supplier (and buyer) that uses the open npm
// toolkit dgii-ecf against a Sello server's public receivers, as that
// toolkit's users do: TestDGIIECFWire (../cmd/sello) runs it with node and
// checks what it reports and what Sello stored.
//
//   node dgii-ecf-wire.mjs INPUT.json > REPORT.json
//
// SELLO_NODE_MODULES names the node_modules folder that holds dgii-ecf
// (oracle.NodeModules installs tools/package.json's pins there). INPUT
// names the receivers, the .p12 files and the documents (see the test);
// the report says what each call answered, and nothing here judges it,
// except where the toolkit itself does (its signature verifier).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const modules = process.env.SELLO_NODE_MODULES;
if (!modules) {
  console.error('SELLO_NODE_MODULES is not set');
  process.exit(2);
}
const require = createRequire(path.join(modules, 'dgii-ecf-wire.cjs'));
const {
  default: ECF,
  ENVIRONMENT,
  P12Reader,
  Signature,
  SenderReceiver,
  ReceivedStatus,
  Transformer,
  restClient,
  setAuthToken,
  validateXMLCertificate,
} = require('dgii-ecf');
// What the toolkit names but gives no call for: the issuer's commercial
// approval service (see postACECF).
const { ENDPOINTS_SENDER_RECEIVER } = require('dgii-ecf/dist/networking/RestApi');
const FormData = require('form-data');
const string2fileStream = require('string-to-file-stream');
const streamLength = require('stream-length');

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const report = { toolkit: require('dgii-ecf/package.json').version };

// failure is what a toolkit call threw: its 401 is a plain object
// {status, message} (restClient's interceptor), other HTTP errors the
// answer's body, anything else an Error.
const failure = (err) => ({
  status: err?.status ?? err?.response?.status ?? null,
  message: err?.message ?? (typeof err === 'string' ? err : JSON.stringify(err)),
});

// fields are the children of an acuse's DetalleAcusedeRecibo, in order, as
// [name, text] (the toolkit's own XML-to-JSON transformer reads it).
const fields = (xml) => {
  const doc = new Transformer().xml2Json(xml);
  const detail = doc?.ARECF?.DetalleAcusedeRecibo ?? {};
  return Object.entries(detail).map(([k, v]) => [k, v?._text ?? null]);
};

const supplier = new P12Reader(input.password).getKeyFromFile(input.supplierP12);
const stranger = new P12Reader(input.password).getKeyFromFile(input.strangerP12);
const sign = (who, xml, root) => new Signature(who.key, who.cert).signXml(xml, root);

// 1. The supplier authenticates at the buyer's receiver (semilla, the seed
// signed with its certificate, validacioncertificado) and sends its e-CF,
// signed by the toolkit, as sendElectronicDocument does for a buyerHost.
const asSupplier = new ECF(supplier, ENVIRONMENT[input.environment]);
try {
  report.token = await asSupplier.authenticate(input.buyerBase);
} catch (err) {
  report.tokenError = failure(err);
}
if (report.token) {
  const signed = sign(supplier, input.ecf, 'ECF');
  report.ecf = { signed };
  try {
    const arecf = await asSupplier.sendElectronicDocument(signed, input.ecfFile, input.buyerBase);
    const check = validateXMLCertificate(arecf, { silent: true });
    const own = new SenderReceiver().getECFDataFromXML(signed, input.buyerRNC, ReceivedStatus['e-CF Recibido']);
    Object.assign(report.ecf, {
      arecf,
      arecfSignatureValid: check.isValid,
      arecfSignatureError: check.error ?? null,
      arecfSigner: check.cert?.subject ?? null,
      arecfFields: fields(arecf),
      ownFields: fields(own),
    });
    // A supplier's retry after a lost answer: the same bytes again.
    report.ecf.arecfAgain = await asSupplier.sendElectronicDocument(signed, input.ecfFile, input.buyerBase);
  } catch (err) {
    report.ecf.error = failure(err);
  }

  // 2. A stranger (a certificate no trusted CA issued) asks for a token,
  // then posts an e-CF of its own signing with the supplier's token.
  try {
    report.strangerToken = await new ECF(stranger, ENVIRONMENT[input.environment]).authenticate(input.buyerBase);
  } catch (err) {
    report.strangerTokenError = failure(err);
  }
  setAuthToken(report.token.token);
  try {
    const arecf = await asSupplier.sendElectronicDocument(sign(stranger, input.strangerEcf, 'ECF'), input.strangerEcfFile, input.buyerBase);
    report.strangerEcf = { arecf, arecfFields: fields(arecf) };
  } catch (err) {
    report.strangerEcf = { error: failure(err) };
  }
}

// 3. As the buyer of the tenant's e-CF, the same company authenticates at
// the issuer's receiver and posts its commercial approval. The toolkit
// builds an ACECF as its certification helper does (Transformer.json2xml
// of DetalleAprobacionComercial) and signs it; it has no call that posts
// an ACECF to an issuer (sendCommercialApproval posts to DGII only), so
// postACECF sends it the way the toolkit sends every signed document
// (sendSignedDocumentApi): its restClient, multipart part "xml" with a
// known length, at the path the toolkit names for that service.
const postACECF = async (xml, file) => {
  const stream = string2fileStream(xml, { path: file });
  const knownLength = await streamLength(stream);
  const form = new FormData();
  form.append('xml', stream, { knownLength });
  try {
    const r = await restClient.post(`/${ENDPOINTS_SENDER_RECEIVER.SEND_COMMERCIAL_APPROVAL}`, form, {
      baseURL: input.issuerBase,
      headers: { ...form.getHeaders(), 'Content-Length': form.getLengthSync() },
    });
    return { status: r.status, body: r.data };
  } catch (err) {
    return { status: err?.response?.status ?? err?.status ?? null, body: err?.response?.data ?? failure(err) };
  }
};
const acecf = (fechaHora) =>
  sign(
    supplier,
    new Transformer().json2xml({
      ACECF: {
        DetalleAprobacionComercial: {
          Version: '1.0',
          RNCEmisor: input.approval.RNCEmisor,
          eNCF: input.approval.eNCF,
          FechaEmision: input.approval.FechaEmision,
          MontoTotal: input.approval.MontoTotal,
          RNCComprador: input.approval.RNCComprador,
          Estado: '1',
          FechaHoraAprobacionComercial: fechaHora,
        },
      },
    }),
    'ACECF'
  );
try {
  report.issuerToken = await new ECF(supplier, ENVIRONMENT[input.environment]).authenticate(input.issuerBase);
} catch (err) {
  report.issuerTokenError = failure(err);
}
if (report.issuerToken) {
  const file = `${input.approval.RNCComprador}${input.approval.eNCF}.xml`;
  // The date the toolkit's certification helper (genrateACECFXml) writes
  // into every ACECF.
  report.acecf2023 = await postACECF(acecf('13-11-2023 19:40:32'), file);
  // The time now in the Dominican Republic, on a 24-hour clock as DGII's
  // format says (dd-MM-yyyy HH:mm:ss), which the toolkit's
  // getCurrentFormattedDateTime does not give (12-hour, no AM/PM).
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'America/Santo_Domingo',
      day: '2-digit', month: '2-digit', year: 'numeric',
      hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
    }).formatToParts(new Date()).map((x) => [x.type, x.value])
  );
  report.acecf = await postACECF(acecf(`${p.day}-${p.month}-${p.year} ${p.hour}:${p.minute}:${p.second}`), file);
}

process.stdout.write(JSON.stringify(report));
