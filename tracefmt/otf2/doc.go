// Package otf2 reads and writes OTF2 archives, the trace format of
// Score-P and of the tools that read its traces (Vampir, Scalasca, Cube).
package otf2
