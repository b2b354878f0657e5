package testenv

import (
	"net"
	"testing"
)

// FreeAddr is a 127.0.0.1:PORT that the kernel just gave a listener on :0,
// closed again: for a server of another process (MinIO, PostgreSQL), which
// must bind it itself. Another may take it meanwhile, rarely: start the
// server again on a new one if it cannot bind.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return FreeAddrs(t, 1)[0]
}

// FreeAddrs is n different FreeAddr (all are held until each is chosen).
func FreeAddrs(t testing.TB, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("listen on 127.0.0.1:0: %v", err)
		}
		defer ln.Close()
		addrs[i] = ln.Addr().String()
	}
	return addrs
}
