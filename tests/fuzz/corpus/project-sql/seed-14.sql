UPDATE runs SET status = 'running', pid = 1, hostname = 'elsewhere';
