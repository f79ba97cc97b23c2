package paraver

import (
	"bytes"
	"fmt"
	"testing"
)

// synthetic returns a .prv of about size bytes: 16 tasks, each a loop of
// a Running state, an MPI_Send with its communication and a counter.
func synthetic(size int) []byte {
	var b bytes.Buffer
	const tasks = 16
	fmt.Fprintf(&b, "#Paraver (01/01/24 at 00:00):%d_ns:1(%d):1:%d(", 1<<62, tasks, tasks)
	for i := 0; i < tasks; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("1:1")
	}
	b.WriteString("),0\n")
	t := int64(0)
	for b.Len() < size {
		for k := 1; k <= tasks; k++ {
			fmt.Fprintf(&b, "1:%d:1:%d:1:%d:%d:1\n", k, k, t, t+100)
			fmt.Fprintf(&b, "2:%d:1:%d:1:%d:50000001:1:42000050:%d\n", k, k, t+100, t*3)
			to := k%tasks + 1
			fmt.Fprintf(&b, "3:%d:1:%d:1:%d:%d:%d:1:%d:1:%d:%d:4096:7\n", k, k, t+100, t+110, to, to, t+150, t+160)
			fmt.Fprintf(&b, "2:%d:1:%d:1:%d:50000001:0\n", k, k, t+120)
		}
		t += 200
	}
	return b.Bytes()
}

// BenchmarkRead reads a 32 MB synthetic trace; MB/s is the read's
// throughput (docs/formats.md quotes it).
func BenchmarkRead(b *testing.B) {
	data := synthetic(32 << 20)
	pcf := files{"out.pcf": []byte(testPCF)}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Read("out.prv", bytes.NewReader(data), pcf.open); err != nil {
			b.Fatal(err)
		}
	}
}
