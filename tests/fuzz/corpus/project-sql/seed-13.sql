UPDATE runs SET status = 'running';
