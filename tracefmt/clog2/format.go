package clog2

import (
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Record types (CLOG_REC_*).
const (
	recEndLog    = 0
	recEndBlock  = 1
	recStateDef  = 2
	recEventDef  = 3
	recConstDef  = 4
	recBareEvt   = 5
	recCargoEvt  = 6
	recMsgEvt    = 7
	recCollEvt   = 8
	recCommEvt   = 9
	recSrcLoc    = 10
	recTimeShift = 11
	numRecTypes  = 12
)

// recSize is the size of each record type, header included.
var recSize = [numRecTypes]int{24, 24, 136, 128, 64, 32, 64, 48, 40, 72, 72, 32}

var recNames = [numRecTypes]string{
	"ENDLOG", "ENDBLOCK", "STATEDEF", "EVENTDEF", "CONSTDEF", "BAREEVT",
	"CARGOEVT", "MSGEVT", "COLLEVT", "COMMEVT", "SRCLOC", "TIMESHIFT",
}

// padAt is the offset of the 4-byte pad field of a record type, or 0 when
// it has none.
var padAt = [numRecTypes]int{recStateDef: 36, recEventDef: 28, recBareEvt: 28, recCargoEvt: 28, recMsgEvt: 44, recCollEvt: 36}

const (
	headerSize  = 24
	preambleLen = 1024
	// maxTime is CLOG_MAXTIME, the time of the ENDLOG record.
	maxTime = 1e8
	// oneGiga is the unit of commtable_fptr's "giga" part.
	oneGiga = 1073741824

	// Field sizes of the fixed strings.
	colorLen  = 24
	nameLen   = 32
	formatLen = 40
	cargoLen  = 32
	fileLen   = 40
	hostLen   = 20

	// Special event types.
	etypeSend  = -101
	etypeRecv  = -102
	etypeConst = -201

	// COMMEVT event types.
	commWorldCreate = 0
	commSelfCreate  = 1
	commFree        = 10
	commIntraCreate = 100
	commInterCreate = 1000

	// Communicator kinds of the communicator table.
	kindUnknown = -1
	kindInter   = 0
	kindIntra   = 1

	// maxRanks bounds the world size the reader accepts.
	maxRanks = 1 << 24
	// maxComms is the number of communicators Event.Comm can index.
	maxComms = 1 << 16
	// maxBlockSize bounds block_size (MPE accepts up to 1 GiB).
	maxBlockSize = 1 << 30
	// minBlockSize leaves room for the largest record and a terminator.
	minBlockSize = 160
)

// Default preamble values of MPE 2 (clog.h, clog_preamble.c).
const (
	defaultBlockSize       = 65536
	defaultBufferedBlocks  = 128
	knownEventIDStart      = 0
	userEventIDStart       = 600
	knownSoloEventIDStart  = -10
	userSoloEventIDStart   = 5000
	knownStateIDCount      = 300
	userStateIDStart       = 300
	collOpEtypeBase        = -300 // COLLEVT etype of operations MPE has no state for
	synthesizedHost        = "tracesim"
	defaultProcNull        = -1 // MPICH's MPI_PROC_NULL
	defaultAnySource       = -2 // MPICH's MPI_ANY_SOURCE
	defaultAnyTag          = -1 // MPICH's MPI_ANY_TAG
	mpeIsendWaitedStateID  = 250
	mpeIrecvWaitedStateID  = 251
	bufferWrite2DiskStatID = 280
)

// mpiStateNames lists MPE's known MPI states by id (log_mpi_core.c): state
// id n starts with event type 2n and ends with 2n+1.
var mpiStateNames = [...]string{
	"MPI_Allgather", "MPI_Allgatherv", "MPI_Allreduce", "MPI_Alltoall", "MPI_Alltoallv",
	"MPI_Barrier", "MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Op_create",
	"MPI_Op_free", "MPI_Reduce_scatter", "MPI_Reduce", "MPI_Scan", "MPI_Scatter",
	"MPI_Scatterv", "MPI_Attr_delete", "MPI_Attr_get", "MPI_Attr_put", "MPI_Comm_compare",
	"MPI_Comm_create", "MPI_Comm_dup", "MPI_Comm_free", "MPI_Comm_group", "MPI_Comm_rank",
	"MPI_Comm_remote_group", "MPI_Comm_remote_size", "MPI_Comm_size", "MPI_Comm_split", "MPI_Comm_test_inter",
	"MPI_Group_compare", "MPI_Group_difference", "MPI_Group_excl", "MPI_Group_free", "MPI_Group_incl",
	"MPI_Group_intersection", "MPI_Group_rank", "MPI_Group_range_excl", "MPI_Group_range_incl", "MPI_Group_size",
	"MPI_Group_translate_ranks", "MPI_Group_union", "MPI_Intercomm_create", "MPI_Intercomm_merge", "MPI_Keyval_create",
	"MPI_Keyval_free", "MPI_Abort", "MPI_Error_class", "MPI_Errhandler_create", "MPI_Errhandler_free",
	"MPI_Errhandler_get", "MPI_Error_string", "MPI_Errhandler_set", "MPI_Get_processor_name", "MPI_Initialized",
	"MPI_Wtick", "MPI_Wtime", "MPI_Address", "MPI_Bsend", "MPI_Bsend_init",
	"MPI_Buffer_attach", "MPI_Buffer_detach", "MPI_Cancel", "MPI_Request_free", "MPI_Recv_init",
	"MPI_Send_init", "MPI_Get_elements", "MPI_Get_count", "MPI_Ibsend", "MPI_Iprobe",
	"MPI_Irecv", "MPI_Irsend", "MPI_Isend", "MPI_Issend", "MPI_Pack",
	"MPI_Pack_size", "MPI_Probe", "MPI_Recv", "MPI_Rsend", "MPI_Rsend_init",
	"MPI_Send", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Ssend", "MPI_Ssend_init",
	"MPI_Start", "MPI_Startall", "MPI_Test", "MPI_Testall", "MPI_Testany",
	"MPI_Test_cancelled", "MPI_Testsome", "MPI_Type_commit", "MPI_Type_contiguous", "MPI_Type_extent",
	"MPI_Type_free", "MPI_Type_hindexed", "MPI_Type_hvector", "MPI_Type_indexed", "MPI_Type_lb",
	"MPI_Type_size", "MPI_Type_struct", "MPI_Type_ub", "MPI_Type_vector", "MPI_Unpack",
	"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Cart_coords",
	"MPI_Cart_create", "MPI_Cart_get", "MPI_Cart_map", "MPI_Cart_shift", "MPI_Cartdim_get",
	"MPI_Dims_create", "MPI_Graph_create", "MPI_Graph_get", "MPI_Graph_map", "MPI_Graph_neighbors",
	"MPI_Graph_neighbors_count", "MPI_Graphdims_get", "MPI_Topo_test", "MPI_Recv_idle", "MPI_Cart_rank",
	"MPI_Cart_sub",
}

// knownStateName returns the name of MPE's known state id, or "".
func knownStateName(id int32) string {
	switch {
	case id >= 0 && int(id) < len(mpiStateNames):
		return mpiStateNames[id]
	case id == mpeIsendWaitedStateID:
		return "MPE_Isend_waited"
	case id == mpeIrecvWaitedStateID:
		return "MPE_Irecv_waited"
	case id == bufferWrite2DiskStatID:
		return "CLOG_Buffer_write2disk"
	}
	return ""
}

// knownStateID returns MPE's id of a known state name (case-insensitive),
// or -1.
func knownStateID(name string) int32 {
	for i, n := range mpiStateNames {
		if strings.EqualFold(n, name) {
			return int32(i)
		}
	}
	for _, id := range []int32{mpeIsendWaitedStateID, mpeIrecvWaitedStateID, bufferWrite2DiskStatID} {
		if strings.EqualFold(knownStateName(id), name) {
			return id
		}
	}
	return -1
}

// collStateID maps a collective operation to MPE's state id of its MPI
// call (-1 when MPE has none).
var collStateID = [...]int32{
	tracefmt.OpOther:         -1,
	tracefmt.OpBarrier:       5,
	tracefmt.OpBcast:         6,
	tracefmt.OpReduce:        12,
	tracefmt.OpAllreduce:     2,
	tracefmt.OpGather:        7,
	tracefmt.OpGatherv:       8,
	tracefmt.OpScatter:       14,
	tracefmt.OpScatterv:      15,
	tracefmt.OpAllgather:     0,
	tracefmt.OpAllgatherv:    1,
	tracefmt.OpAlltoall:      3,
	tracefmt.OpAlltoallv:     4,
	tracefmt.OpReduceScatter: 11,
	tracefmt.OpScan:          13,
	tracefmt.OpExscan:        -1,
}

// collEtype returns the COLLEVT event type the writer uses for op: the start
// event of the operation's MPI state, or collOpEtypeBase-op for operations
// MPE has no state for.
func collEtype(op tracefmt.CollOp) int32 {
	if int(op) < len(collStateID) && collStateID[op] >= 0 {
		return 2 * collStateID[op]
	}
	return collOpEtypeBase - int32(op)
}

// collOp is the inverse of collEtype; unknown event types give OpOther.
func collOp(etype int32) tracefmt.CollOp {
	for op, id := range collStateID {
		if id >= 0 && 2*id == etype {
			return tracefmt.CollOp(op)
		}
	}
	if k := collOpEtypeBase - etype; k >= 0 && int(k) < len(collStateID) {
		return tracefmt.CollOp(k)
	}
	return tracefmt.OpOther
}
