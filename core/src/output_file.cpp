// (to be implemented)
