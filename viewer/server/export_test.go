package server

// WalkNow walks the folder to the end, after the walk under way if any:
// what the list's background walk does, for benchmarks that measure a
// server's life, its walks included.
func (s *Server) WalkNow() { s.refresh() }
