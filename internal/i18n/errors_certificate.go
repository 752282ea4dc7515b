package i18n

// The messages of a new signing certificate (sello.OpenCertificateFile,
// sello.NewSelfSignedCertificate), which the operator CLI and the portal
// both show.

func init() {
	registerErrors(map[string]string{
		"The .p12 file is empty.": "El archivo .p12 está vacío.",
		"The .p12 file has %d bytes; a signing certificate's file has at most %d.":                                   "El archivo .p12 tiene %d bytes; el archivo de un certificado de firma tiene como máximo %d.",
		"The password does not open the .p12 file.":                                                                  "La contraseña no abre el archivo .p12.",
		"The file does not open as a .p12 (PKCS#12) signing certificate: %v.":                                        "El archivo no se abre como un certificado de firma .p12 (PKCS#12): %v.",
		"The certificate expired on %s.":                                                                             "El certificado venció el %s.",
		"A self-signed certificate cannot sign in eCF: DGII requires a certificate issued by an authorized CA (%s).": "Un certificado autofirmado no puede firmar en eCF: la DGII requiere un certificado emitido por una entidad de certificación autorizada (%s).",
		"a self-signed one serves TesteCF and CerteCF only":                                                          "uno autofirmado sirve solo en TesteCF y CerteCF",
	})
}
