package io.directlog.storage.io.sim;

import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.DelegatingBlockIo;

/**
 * A {@link BlockIo} that forwards to a device the test can swap: lets one long-lived SegmentPreparer serve crash
 * image after crash image (the test swaps only while the preparer is idle).
 * <p>
 * Thread-safe.
 */
public final class SwitchingBlockIo extends DelegatingBlockIo
{
    /** Calls fail until a device is given with {@link #use}. */
    public SwitchingBlockIo()
    {
        super(null);
    }

    /** @param io the device calls go to from now on. */
    public void use(final BlockIo io)
    {
        delegateTo(io);
    }

    @Override
    public int alignment()
    {
        return SimulatedBlockIo.ALIGNMENT;
    }

    @Override
    public boolean isDirect()
    {
        return true;
    }

    @Override
    public String describe()
    {
        return "switching simulated device";
    }
}
