"""fedrates verify: claims, sweeps, statistical checks, the command line."""
