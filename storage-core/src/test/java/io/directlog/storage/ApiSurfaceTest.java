package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The published API is {@code io.directlog.storage} plus the SPI {@code io.directlog.storage.spi} (issue 19): what
 * an application can see of those two packages (public classes, their public and protected members, supertypes,
 * parameter, return, field and exception types, type arguments included) names only the API, the SPI, the JDK
 * and the few third-party types the API takes on purpose (Agrona's buffers for zero-copy appends and reads,
 * Micrometer's registry). An engine package showing through a public signature (as {@code StoreConfig.blockIo()}
 * did with the engine's {@code io.BlockIo} before the SPI package) makes that internal class part of the API.
 */
class ApiSurfaceTest
{
    private static final String API = "io.directlog.storage";
    private static final String SPI = API + ".spi";

    /** Third-party types a public signature may name, each for a reason the API's Javadoc gives. */
    private static final Set<String> ALLOWED_FOREIGN = Set.of(
        "org.agrona.DirectBuffer", "org.agrona.MutableDirectBuffer", "io.micrometer.core.instrument.MeterRegistry");

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses()
    {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(API);
    }

    @Test
    void publicSignaturesOfTheApiAndSpiNameNoEnginePackage()
    {
        final Set<String> leaks = new TreeSet<>();
        int checked = 0;
        for (final JavaClass type : classes)
        {
            if (!isPublished(type))
            {
                continue;
            }
            checked++;
            type.getRawSuperclass().ifPresent(s -> check(type.getName() + " extends", s, leaks));
            type.getRawInterfaces().forEach(i -> check(type.getName() + " implements", i, leaks));
            for (final JavaMember member : visibleMembers(type))
            {
                for (final JavaClass used : typesIn(member))
                {
                    check(member.getFullName(), used, leaks);
                }
            }
        }
        assertTrue(checked > 20, "found only " + checked + " published classes: the import missed the API");
        assertEquals(Set.of(), leaks, "public signatures of the API/SPI that name types outside it");
    }

    private static boolean isPublished(final JavaClass type)
    {
        final String pkg = type.getPackageName();
        if (!pkg.equals(API) && !pkg.equals(SPI))
        {
            return false;
        }
        for (JavaClass c = type; c != null; c = c.getEnclosingClass().orElse(null))
        {
            if (!c.getModifiers().contains(JavaModifier.PUBLIC) || c.isAnonymousClass() || c.isLocalClass())
            {
                return false;
            }
        }
        return true;
    }

    private static List<JavaMember> visibleMembers(final JavaClass type)
    {
        final List<JavaMember> members = new ArrayList<>();
        for (final JavaMember m : type.getMembers())
        {
            final Set<JavaModifier> mods = m.getModifiers();
            final boolean subclassable = !type.getModifiers().contains(JavaModifier.FINAL);
            if (mods.contains(JavaModifier.PUBLIC) || (subclassable && mods.contains(JavaModifier.PROTECTED)))
            {
                if (!mods.contains(JavaModifier.SYNTHETIC) && !mods.contains(JavaModifier.BRIDGE))
                {
                    members.add(m);
                }
            }
        }
        return members;
    }

    private static Set<JavaClass> typesIn(final JavaMember member)
    {
        final Set<JavaClass> used = new java.util.HashSet<>();
        if (member instanceof JavaField field)
        {
            used.addAll(field.getType().getAllInvolvedRawTypes());
        }
        else if (member instanceof JavaCodeUnit code)
        {
            used.addAll(code.getReturnType().getAllInvolvedRawTypes());
            for (final JavaType parameter : code.getParameterTypes())
            {
                used.addAll(parameter.getAllInvolvedRawTypes());
            }
            used.addAll(code.getExceptionTypes());
        }
        return used;
    }

    private static void check(final String where, final JavaClass used, final Set<String> leaks)
    {
        final JavaClass base = used.isArray() ? used.getBaseComponentType() : used;
        if (base.isPrimitive())
        {
            return;
        }
        final String pkg = base.getPackageName();
        final boolean ok = pkg.startsWith("java.") || pkg.equals(API) || pkg.equals(SPI) ||
            ALLOWED_FOREIGN.contains(base.getName());
        if (!ok)
        {
            leaks.add(where + " -> " + base.getName());
        }
    }
}
