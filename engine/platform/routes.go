package platform

// SimGrid's own routes on its TORUS and DRAGONFLY clusters, which a
// topology's routing algorithms do not reproduce: which way a TORUS
// message turns on a tie, and DRAGONFLY routes that are not always paths.
// They are given as the router-to-router hops after the source's link and
// before the destination's, each a (from, to) pair of adjacent routers:
// the directed link from one to the other; with limiters, (HostLimiter,
// h) and (RouterLimiter, r) pairs name the limiter links the route also
// crosses besides its source's and destination's.

// Markers of Platform.Hops pairs that name a limiter rather than a link.
const (
	// HostLimiter marks (HostLimiter, h): host h's limiter link.
	HostLimiter = -1
	// RouterLimiter marks (RouterLimiter, r): router r's limiter link
	// (SimGrid 3.32 gives every DRAGONFLY router one).
	RouterLimiter = -2
)

// torusHops returns SimGrid 3.32's TORUS routes (TorusZone): dimension
// by dimension from the first (the one host numbers vary fastest in),
// each dimension in one direction, chosen from the source's coordinate:
// towards higher coordinates when the target is at most half the ring
// above it, or when the source sits above the middle and the target is
// within half a ring past the wraparound; else towards lower ones. On a
// tie that is upward except from the middle coordinate. Router r is
// host r; with limiters every host a message leaves is crossed in its
// limiter (hosts forward).
func torusHops(dims []int, limiter bool) func(src, dst int, buf []int) []int {
	return func(src, dst int, buf []int) []int {
		cur := src
		prod := 1
		for _, d := range dims {
			my, target := (src/prod)%d, (dst/prod)%d
			up := (target > my && target <= my+d/2) || (my > d/2 && (my+d/2)%d >= target)
			for (cur/prod)%d != target {
				next := cur + prod
				if !up {
					next = cur - prod
				}
				switch {
				case up && (cur/prod)%d == d-1:
					next = cur + prod - prod*d
				case !up && (cur/prod)%d == 0:
					next = cur - prod + prod*d
				}
				if limiter && cur != src {
					buf = append(buf, HostLimiter, cur)
				}
				buf = append(buf, cur, next)
				cur = next
			}
			prod *= d
		}
		return buf
	}
}

// dragonflyHops returns SimGrid 3.32's DRAGONFLY routes (DragonflyZone,
// minimal routing) on the graph of dragonfly(): routers numbered group,
// chassis, blade; hosts per router n. Across groups a message goes to the
// blade of its chassis numbered after the target group (green), to
// chassis 0 of that blade (black), over the blue link to blade "source
// group" of chassis 0 of the target group; then, as within a group, to
// the target's blade (green) and chassis (black). SimGrid tracks the
// router it is at as chassis 0 after the green hop within the target
// group, so where that is not true its hops are not a path: the black
// link it names leaves chassis 0's router, and a message that started in
// a chassis other than 0 takes no black hop when it should. These hops
// reproduce its links exactly, path or not. With limiters, SimGrid 3.32
// crosses the limiter of the router it believes it is at before each
// green and black hop and after the blue one, and the target router's.
func dragonflyHops(c, r, n int, limiter bool) func(src, dst int, buf []int) []int {
	at := func(g, ch, bl int) int { return (g*c+ch)*r + bl }
	coords := func(h int) (g, ch, bl int) {
		rt := h / n
		return rt / (c * r), (rt / r) % c, rt % r
	}
	return func(src, dst int, buf []int) []int {
		sg, sc, sb := coords(src)
		tg, tc, tb := coords(dst)
		target := at(tg, tc, tb)
		// hop appends the link from the router SimGrid believes it is
		// at (g, ch, bl) to router to, after that router's limiter.
		var g, ch, bl int
		hop := func(to int) {
			if limiter {
				buf = append(buf, RouterLimiter, at(g, ch, bl))
			}
			buf = append(buf, at(g, ch, bl), to)
		}
		g, ch, bl = sg, sc, sb
		if at(sg, sc, sb) != target {
			if tg != g {
				if bl != tg {
					hop(at(g, ch, tg))
					bl = tg
				}
				if ch != 0 {
					hop(at(g, 0, bl))
					ch = 0
				}
				// The blue hop: the limiter after the link, the same.
				hop(at(tg, 0, sg))
				g, ch, bl = tg, 0, sg
			}
			if tb != bl {
				hop(at(g, ch, tb))
				// SimGrid: the router at blade tb of chassis 0.
				ch, bl = 0, tb
			}
			if tc != ch {
				hop(at(g, tc, bl))
			}
		}
		if limiter {
			buf = append(buf, RouterLimiter, target)
		}
		return buf
	}
}
