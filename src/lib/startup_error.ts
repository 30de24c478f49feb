/** Exit code when a setting is wrong (sysexits EX_CONFIG): fix the named variable. */
export const EXIT_CONFIG = 78;
/** Exit code when a file or the disk failed (sysexits EX_IOERR). */
export const EXIT_IO = 74;
/** Exit code when a command line is wrong (an unknown option). */
export const EXIT_USAGE = 2;

/** A reason the server cannot start, naming the setting and what to do; printed as one line. */
export class StartupError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number, options?: ErrorOptions) {
    super(message, options);
    this.name = "StartupError";
    this.exitCode = exitCode;
  }
}

/** A setting names something unusable (an address, a directory, a file); exit EXIT_CONFIG. */
export class SettingError extends StartupError {
  constructor(variable: string, value: string, problem: string, options?: ErrorOptions) {
    super(`${variable} "${value}" ${problem}`, EXIT_CONFIG, options);
    this.name = "SettingError";
  }
}

/** Reading or writing a file under a setting failed; exit EXIT_IO. */
export class StartupIoError extends StartupError {
  constructor(variable: string, value: string, problem: string, options?: ErrorOptions) {
    super(`${variable} "${value}" ${problem}`, EXIT_IO, options);
    this.name = "StartupIoError";
  }
}
