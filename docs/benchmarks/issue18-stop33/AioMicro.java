import io.directlog.nativeio.*;
import java.nio.file.*;

public class AioMicro {
    public static void main(String[] a) throws Exception {
        int files = Integer.parseInt(a[0]);
        int rounds = Integer.parseInt(a[1]);
        Path dir = Path.of(a[2]);
        Files.createDirectories(dir);
        NativeFile[] f = new NativeFile[files];
        AlignedMemory mem = AlignedMemory.allocate(4096, 4096);
        AlignedMemory zeros = AlignedMemory.allocate(1 << 20, 4096);
        for (int i = 0; i < files; i++) {
            f[i] = NativeFile.open(dir.resolve("f" + i), OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.DIRECT);
            for (int m = 0; m < 4; m++) f[i].writeFully(zeros.address(), 1 << 20, (long) m << 20);
            f[i].datasync();
        }
        AioContext aio = AioContext.open(128);
        for (int rep = 0; rep < 3; rep++) {
            long t0 = System.nanoTime();
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < files; i++) f[i].writeFully(mem.address(), 4096, (r % 1000) * 4096L);
                f[0].datasync();
            }
            long t1 = System.nanoTime();
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < files; i++) aio.add(f[i], mem.address(), 4096, (r % 1000) * 4096L);
                aio.submitAndAwait();
                for (int i = 0; i < files; i++) if (aio.failure(i) != null) throw aio.failure(i);
                aio.clear();
                f[0].datasync();
            }
            long t2 = System.nanoTime();
            System.out.printf("files=%d serial %.1f us/cycle, aio %.1f us/cycle%n", files, (t1 - t0) / 1e3 / rounds, (t2 - t1) / 1e3 / rounds);
        }
    }
}
