// Command rsacpu prints the CPU time of one raw RSA-2048 signature
// (PKCS #1 v1.5 over a SHA-256 digest, Go's crypto/rsa), in milliseconds:
// the baseline bench-server-cpu.sh divides a server's CPU per document by.
// It counts the process's CPU (getrusage), not the wall clock, so that
// other work on the machine slows it less than it slows a signing rate;
// run it with GOMAXPROCS=1.
package main

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"syscall"
)

func main() {
	n := flag.Int("n", 400, "signatures to time")
	flag.Parse()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rsacpu: generate key:", err)
		os.Exit(1)
	}
	digest := sha256.Sum256([]byte("sello"))
	start := cpu()
	for range *n {
		if _, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, digest[:]); err != nil {
			fmt.Fprintln(os.Stderr, "rsacpu: sign:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("%.4f\n", float64(cpu()-start)/float64(*n)/1e6)
}

// cpu is the process's user and system CPU time so far, in nanoseconds.
func cpu() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fmt.Fprintln(os.Stderr, "rsacpu: getrusage:", err)
		os.Exit(1)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
