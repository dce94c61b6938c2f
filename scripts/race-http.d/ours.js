serve({ fetch: (request) => raceHandler(request) });
