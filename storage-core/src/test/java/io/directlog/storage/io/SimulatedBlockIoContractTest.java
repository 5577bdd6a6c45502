package io.directlog.storage.io;

import io.directlog.storage.spi.BlockIo;
import java.nio.file.Path;

import io.directlog.storage.io.sim.SimulatedBlockIo;

/**
 * The simulated device of the power-loss tests against the {@link BlockIoContract}: what the crash tests prove
 * about the engine holds on a real device only if the simulation behaves like one.
 */
class SimulatedBlockIoContractTest extends BlockIoContract
{
    @Override
    BlockIo newIo()
    {
        return new SimulatedBlockIo();
    }

    @Override
    Path newDirectory()
    {
        return Path.of("/sim/contract-test");
    }
}
