import { EXIT_CONFIG, StartupError } from "../lib/startup_error.ts";

/** A setting is missing or wrong; the message says what to fix. */
export class ConfigError extends StartupError {
  constructor(message: string) {
    super(message, EXIT_CONFIG);
    this.name = "ConfigError";
  }
}
