package sello

// HOTP is hotp, for RFC 6238's vectors of SHA-256 and SHA-512.
var HOTP = hotp
