"""fedrates reports: HTML/PDF renderings of stored records and verdicts."""
