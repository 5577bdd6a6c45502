package io.directlog.storage.log;

import java.nio.file.Path;

import io.directlog.storage.RecoveryMode;
import io.directlog.storage.spi.BlockIo;

/**
 * A step of one log's recovery: what every step reads from the {@link RecoveryScope} it works in, taken once.
 * <p>
 * Not thread-safe: one open, on the opening thread.
 */
abstract class RecoveryStep
{
    static final System.Logger LOG = RecoveryScope.LOG;

    final RecoveryScope scope;
    final String name;
    final Path dir;
    final LogContext context;
    final BlockIo io;
    final RecoveryMode mode;
    final RecoveryRules rules;
    final int align;

    RecoveryStep(final RecoveryScope scope)
    {
        this.scope = scope;
        this.name = scope.name;
        this.dir = scope.dir;
        this.context = scope.context;
        this.io = scope.io;
        this.mode = scope.mode;
        this.rules = scope.rules;
        this.align = scope.align;
    }
}
