package paraver

// extraeMPI names the values of Extrae's MPI event types (50000001 and
// the types after it), for traces without a .pcf that names them.
var extraeMPI = [...]string{
	1: "MPI_Send", 2: "MPI_Recv", 3: "MPI_Isend", 4: "MPI_Irecv", 5: "MPI_Wait", 6: "MPI_Waitall",
	7: "MPI_Bcast", 8: "MPI_Barrier", 9: "MPI_Reduce", 10: "MPI_Allreduce",
	11: "MPI_Alltoall", 12: "MPI_Alltoallv", 13: "MPI_Gather", 14: "MPI_Gatherv",
	15: "MPI_Scatter", 16: "MPI_Scatterv", 17: "MPI_Allgather", 18: "MPI_Allgatherv",
	19: "MPI_Comm_rank", 20: "MPI_Comm_size", 21: "MPI_Comm_create", 22: "MPI_Comm_dup",
	23: "MPI_Comm_split", 24: "MPI_Comm_group", 25: "MPI_Comm_free", 26: "MPI_Comm_remote_group",
	27: "MPI_Comm_remote_size", 28: "MPI_Comm_test_inter", 29: "MPI_Comm_compare", 30: "MPI_Scan",
	31: "MPI_Init", 32: "MPI_Finalize", 33: "MPI_Bsend", 34: "MPI_Ssend", 35: "MPI_Rsend",
	36: "MPI_Ibsend", 37: "MPI_Issend", 38: "MPI_Irsend", 39: "MPI_Test", 40: "MPI_Cancel",
	41: "MPI_Sendrecv", 42: "MPI_Sendrecv_replace", 43: "MPI_Cart_create", 44: "MPI_Cart_shift",
	45: "MPI_Cart_coords", 46: "MPI_Cart_get", 47: "MPI_Cart_map", 48: "MPI_Cart_rank",
	49: "MPI_Cart_sub", 50: "MPI_Cartdim_get",
}

// ExtraeMPIName returns the MPI call an Extrae MPI event (types
// 50000000–50999999) with this value records, or "" when the value is not
// one of the calls Extrae numbers 1–50.
func ExtraeMPIName(typ, value int64) string {
	if typ/1000000 == 50 && value > 0 && value < int64(len(extraeMPI)) {
		return extraeMPI[value]
	}
	return ""
}
